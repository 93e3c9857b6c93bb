/**
 * Migration 1: the tables, indexes and PL/pgSQL functions of PostgresStore,
 * as first released. FROZEN: a database that has run it never runs it again,
 * so editing this text would change new databases only. To change a table,
 * an index or a function, append a migration (`CREATE OR REPLACE FUNCTION`
 * for a function); test/store/postgres/migrations.ts checks that this text is
 * unchanged and that a database migrated step by step ends like a new one.
 *
 * The functions are what make a multi-statement rule one atomic call (one
 * round trip, one transaction):
 * - `publish_site`: the first-publish charge, under a row lock, so parallel
 *   first publishes queue and only the first sees first_published_at unset;
 * - `delete_site`: Delete Site with its cascade (grants by foreign key,
 *   analytics, the active subscription cancelled);
 * - `set_grant`: grants checked against both owners, FOR KEY SHARE on both rows;
 * - `increment_within_limit`: the daily limit, an upsert whose WHERE sees the
 *   latest count;
 * - `dim_id`, `record_visit`, `record_activity`: analytics recording, which
 *   finds the site under FOR KEY SHARE (a Delete Site racing a visit waits
 *   and then drops what it wrote, or wins first and nothing is recorded) and
 *   always locks the site-day row first, so recordings never take row locks
 *   in opposite orders. Dimension values are interned in `dim_values`
 *   (dim 0 is system, 1 is geo).
 *
 * Expectations (`p_created`, `p_build`) are NULL when not given. `S` is the
 * quoted schema.
 */
export const migration = {
  version: 1,
  name: 'tables, indexes and functions',
  sql: (S: string): string => `
CREATE TABLE ${S}.masters (
  user_name text COLLATE "C" PRIMARY KEY,
  rec jsonb NOT NULL
);

-- A site is its record (jsonb) plus columns generated from it for the
-- indexes; id is one incarnation of the name (analytics hang off it, so a
-- re-created name starts from nothing).
CREATE TABLE ${S}.sites (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  site_name text COLLATE "C" NOT NULL UNIQUE,
  rec jsonb NOT NULL,
  owner text COLLATE "C" NOT NULL GENERATED ALWAYS AS (rec->>'owner') STORED,
  created_at float8 NOT NULL GENERATED ALWAYS AS ((rec->>'created_at')::float8) STORED,
  modified_at float8 NOT NULL GENERATED ALWAYS AS ((rec->>'modified_at')::float8) STORED,
  external_uid text COLLATE "C" GENERATED ALWAYS AS (rec->>'external_uid') STORED,
  -- The active subscription of this incarnation, cancelled by Delete Site.
  subscription_id bigint
);
-- Names are unique regardless of letter case; lookups stay exact.
CREATE UNIQUE INDEX sites_name_folded ON ${S}.sites (lower(site_name));
CREATE INDEX sites_by_created ON ${S}.sites (owner, created_at, site_name);
CREATE INDEX sites_by_modified ON ${S}.sites (owner, modified_at, site_name);
CREATE INDEX sites_by_external_uid ON ${S}.sites (owner, external_uid, created_at DESC, site_name DESC)
  WHERE external_uid IS NOT NULL;

CREATE TABLE ${S}.accounts (
  account_name text COLLATE "C" PRIMARY KEY,
  rec jsonb NOT NULL,
  owner text COLLATE "C" NOT NULL GENERATED ALWAYS AS (rec->>'owner') STORED
);
CREATE UNIQUE INDEX accounts_name_folded ON ${S}.accounts (lower(account_name));

-- Grants die with their site or account: the foreign keys cascade inside
-- the deleting statement.
CREATE TABLE ${S}.grants (
  account_name text COLLATE "C" NOT NULL REFERENCES ${S}.accounts (account_name) ON DELETE CASCADE,
  site_name text COLLATE "C" NOT NULL REFERENCES ${S}.sites (site_name) ON DELETE CASCADE,
  PRIMARY KEY (account_name, site_name)
);
CREATE INDEX grants_by_site ON ${S}.grants (site_name);

CREATE TABLE ${S}.charges (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner text COLLATE "C" NOT NULL,
  site_name text NOT NULL,
  at float8 NOT NULL
);
CREATE INDEX charges_by_owner ON ${S}.charges (owner, id);
CREATE TABLE ${S}.subscriptions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner text COLLATE "C" NOT NULL,
  site_name text NOT NULL,
  status text NOT NULL
);
CREATE INDEX subscriptions_by_owner ON ${S}.subscriptions (owner, id);

CREATE TABLE ${S}.limits (
  key text COLLATE "C" PRIMARY KEY,
  count integer NOT NULL,
  expires_at float8 NOT NULL
);
CREATE INDEX limits_by_expiry ON ${S}.limits (expires_at);

-- Analytics: one row per site and UTC day, one per site, day and dimension
-- value, and one per distinct (visitor, system, geo) of a site-day, which
-- gives exact distinct visitors over any period and dimension value.
CREATE TABLE ${S}.dim_values (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  dim smallint NOT NULL,
  k1 text COLLATE "C" NOT NULL,
  k2 text COLLATE "C" NOT NULL,
  UNIQUE (dim, k1, k2)
);
CREATE TABLE ${S}.site_days (
  site_id bigint NOT NULL,
  day date NOT NULL,
  owner text COLLATE "C" NOT NULL,
  visits integer NOT NULL DEFAULT 0,
  page_views bigint NOT NULL DEFAULT 0,
  click_to_call integer NOT NULL DEFAULT 0,
  click_to_map integer NOT NULL DEFAULT 0,
  click_to_email integer NOT NULL DEFAULT 0,
  form_submit integer NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day)
);
-- Most-traffic reads an owner's days with an index-only scan.
CREATE INDEX site_days_by_owner ON ${S}.site_days (owner, day) INCLUDE (site_id, visits);
CREATE TABLE ${S}.dim_days (
  site_id bigint NOT NULL,
  day date NOT NULL,
  dim_id integer NOT NULL,
  visits integer NOT NULL DEFAULT 0,
  page_views bigint NOT NULL DEFAULT 0,
  click_to_call integer NOT NULL DEFAULT 0,
  click_to_map integer NOT NULL DEFAULT 0,
  click_to_email integer NOT NULL DEFAULT 0,
  form_submit integer NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day, dim_id)
);
CREATE TABLE ${S}.day_visitors (
  site_id bigint NOT NULL,
  day date NOT NULL,
  visitor_id text COLLATE "C" NOT NULL,
  sys_id integer NOT NULL,
  geo_id integer NOT NULL,
  PRIMARY KEY (site_id, day, visitor_id, sys_id, geo_id)
);

-- Publishes the owner's site at p_at. Returns -1 (not found or not as
-- expected), 1 (first publish, charged) or 0. The row lock makes parallel
-- first publishes queue: only the first sees first_published_at unset.
CREATE FUNCTION ${S}.publish_site(p_owner text, p_site text, p_at float8, p_charge boolean, p_created float8, p_build text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_first jsonb;
  v_sub bigint;
BEGIN
  SELECT s.id, s.rec->'first_published_at' INTO v_id, v_first
    FROM ${S}.sites s
   WHERE s.site_name = p_site AND s.owner = p_owner
     AND (p_created IS NULL OR s.created_at = p_created)
     AND (p_build IS NULL OR s.rec->>'build' = p_build)
     FOR UPDATE;
  IF NOT FOUND THEN RETURN -1; END IF;
  IF v_first IS NOT NULL THEN
    UPDATE ${S}.sites SET rec = rec || jsonb_build_object('published_at', p_at, 'modified_at', p_at) WHERE id = v_id;
    RETURN 0;
  END IF;
  IF p_charge THEN
    INSERT INTO ${S}.charges (owner, site_name, at) VALUES (p_owner, p_site, p_at);
    INSERT INTO ${S}.subscriptions (owner, site_name, status) VALUES (p_owner, p_site, 'active') RETURNING id INTO v_sub;
  END IF;
  UPDATE ${S}.sites
     SET rec = rec || jsonb_build_object('published_at', p_at, 'modified_at', p_at, 'first_published_at', p_at),
         subscription_id = v_sub
   WHERE id = v_id;
  RETURN CASE WHEN p_charge THEN 1 ELSE 0 END;
END $$;

-- Deletes the owner's site: its grants (foreign-key cascade), its analytics,
-- and cancels its active subscription. False when not found or not as expected.
CREATE FUNCTION ${S}.delete_site(p_owner text, p_site text, p_created float8, p_build text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_sub bigint;
BEGIN
  DELETE FROM ${S}.sites s
   WHERE s.site_name = p_site AND s.owner = p_owner
     AND (p_created IS NULL OR s.created_at = p_created)
     AND (p_build IS NULL OR s.rec->>'build' = p_build)
  RETURNING s.id, s.subscription_id INTO v_id, v_sub;
  IF NOT FOUND THEN RETURN false; END IF;
  IF v_sub IS NOT NULL THEN
    UPDATE ${S}.subscriptions SET status = 'cancelled' WHERE id = v_sub;
  END IF;
  DELETE FROM ${S}.site_days WHERE site_id = v_id;
  DELETE FROM ${S}.dim_days WHERE site_id = v_id;
  DELETE FROM ${S}.day_visitors WHERE site_id = v_id;
  RETURN true;
END $$;

-- Grants or revokes when both the account and the site are the owner's.
-- FOR KEY SHARE holds both rows until the grant is written, so a delete
-- racing it either waits (and cascades the new grant away) or wins first
-- (and the grant finds nothing).
CREATE FUNCTION ${S}.set_grant(p_owner text, p_account text, p_site text, p_grant boolean)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM ${S}.accounts a WHERE a.account_name = p_account AND a.owner = p_owner FOR KEY SHARE;
  IF NOT FOUND THEN RETURN 'no-account'; END IF;
  PERFORM 1 FROM ${S}.sites s WHERE s.site_name = p_site AND s.owner = p_owner FOR KEY SHARE;
  IF NOT FOUND THEN RETURN 'no-site'; END IF;
  IF p_grant THEN
    INSERT INTO ${S}.grants (account_name, site_name) VALUES (p_account, p_site) ON CONFLICT DO NOTHING;
  ELSE
    DELETE FROM ${S}.grants WHERE account_name = p_account AND site_name = p_site;
  END IF;
  RETURN 'ok';
END $$;

-- Counts one call against p_key unless it has reached p_limit. The upsert's
-- WHERE is checked on the latest row version, so parallel calls never pass
-- the limit; a refused call re-reads the count in a fresh snapshot. The
-- expiry is kept at least a day past the database clock, so a counter on an
-- engine clock set in the past is never swept while it is in use; expired
-- counters are swept now and then.
CREATE FUNCTION ${S}.increment_within_limit(p_key text, p_limit bigint, p_expires float8, OUT o_allowed boolean, OUT o_count integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_now float8 := extract(epoch FROM clock_timestamp()) * 1000;
  v_expires float8 := greatest(p_expires, v_now + 86400000);
BEGIN
  IF p_limit > 0 THEN
    INSERT INTO ${S}.limits AS l (key, count, expires_at) VALUES (p_key, 1, v_expires)
    ON CONFLICT (key) DO UPDATE SET count = l.count + 1, expires_at = greatest(l.expires_at, excluded.expires_at)
      WHERE l.count < p_limit
    RETURNING l.count INTO o_count;
    IF FOUND THEN
      o_allowed := true;
      IF random() < 0.001 THEN
        DELETE FROM ${S}.limits WHERE expires_at < v_now AND key <> p_key;
      END IF;
      RETURN;
    END IF;
  END IF;
  o_allowed := false;
  SELECT l.count INTO o_count FROM ${S}.limits l WHERE l.key = p_key;
  o_count := coalesce(o_count, 0);
END $$;


-- The id of a dimension value, added if new (a racing insert of the same
-- value is waited for, then read).
CREATE FUNCTION ${S}.dim_id(p_dim smallint, p_k1 text, p_k2 text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE v integer;
BEGIN
  SELECT id INTO v FROM ${S}.dim_values WHERE dim = p_dim AND k1 = p_k1 AND k2 = p_k2;
  IF FOUND THEN RETURN v; END IF;
  INSERT INTO ${S}.dim_values (dim, k1, k2) VALUES (p_dim, p_k1, p_k2) ON CONFLICT DO NOTHING RETURNING id INTO v;
  IF v IS NULL THEN
    SELECT id INTO v FROM ${S}.dim_values WHERE dim = p_dim AND k1 = p_k1 AND k2 = p_k2;
  END IF;
  RETURN v;
END $$;

-- Records a visit; no row when no site has that name. Answers the owner and
-- build (text) read in the same step.
CREATE FUNCTION ${S}.record_visit(p_site text, p_day date, p_visitor text, p_pages bigint,
  p_browser text, p_os text, p_country text, p_region text, OUT o_owner text, OUT o_build text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_sys integer;
  v_geo integer;
BEGIN
  SELECT s.id, s.owner, s.rec->>'build' INTO v_id, o_owner, o_build
    FROM ${S}.sites s WHERE s.site_name = p_site FOR KEY SHARE;
  IF NOT FOUND THEN RETURN; END IF;
  v_sys := ${S}.dim_id(0::smallint, p_browser, p_os);
  v_geo := ${S}.dim_id(1::smallint, p_country, p_region);
  INSERT INTO ${S}.site_days AS d (site_id, day, owner, visits, page_views) VALUES (v_id, p_day, o_owner, 1, p_pages)
  ON CONFLICT (site_id, day) DO UPDATE SET visits = d.visits + 1, page_views = d.page_views + excluded.page_views;
  INSERT INTO ${S}.dim_days AS d (site_id, day, dim_id, visits, page_views)
  VALUES (v_id, p_day, v_sys, 1, p_pages), (v_id, p_day, v_geo, 1, p_pages)
  ON CONFLICT (site_id, day, dim_id) DO UPDATE SET visits = d.visits + 1, page_views = d.page_views + excluded.page_views;
  INSERT INTO ${S}.day_visitors (site_id, day, visitor_id, sys_id, geo_id) VALUES (v_id, p_day, p_visitor, v_sys, v_geo)
  ON CONFLICT DO NOTHING;
  RETURN NEXT;
END $$;

-- Records an activity: p_kinds holds 1 for its kind and 0 for the three
-- others (click_to_call, click_to_map, click_to_email, form_submit).
CREATE FUNCTION ${S}.record_activity(p_site text, p_day date, p_kinds integer[],
  p_browser text, p_os text, p_country text, p_region text, OUT o_owner text, OUT o_build text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_sys integer;
  v_geo integer;
BEGIN
  SELECT s.id, s.owner, s.rec->>'build' INTO v_id, o_owner, o_build
    FROM ${S}.sites s WHERE s.site_name = p_site FOR KEY SHARE;
  IF NOT FOUND THEN RETURN; END IF;
  v_sys := ${S}.dim_id(0::smallint, p_browser, p_os);
  v_geo := ${S}.dim_id(1::smallint, p_country, p_region);
  INSERT INTO ${S}.site_days AS d (site_id, day, owner, click_to_call, click_to_map, click_to_email, form_submit)
  VALUES (v_id, p_day, o_owner, p_kinds[1], p_kinds[2], p_kinds[3], p_kinds[4])
  ON CONFLICT (site_id, day) DO UPDATE SET
    click_to_call = d.click_to_call + excluded.click_to_call, click_to_map = d.click_to_map + excluded.click_to_map,
    click_to_email = d.click_to_email + excluded.click_to_email, form_submit = d.form_submit + excluded.form_submit;
  INSERT INTO ${S}.dim_days AS d (site_id, day, dim_id, click_to_call, click_to_map, click_to_email, form_submit)
  VALUES (v_id, p_day, v_sys, p_kinds[1], p_kinds[2], p_kinds[3], p_kinds[4]),
         (v_id, p_day, v_geo, p_kinds[1], p_kinds[2], p_kinds[3], p_kinds[4])
  ON CONFLICT (site_id, day, dim_id) DO UPDATE SET
    click_to_call = d.click_to_call + excluded.click_to_call, click_to_map = d.click_to_map + excluded.click_to_map,
    click_to_email = d.click_to_email + excluded.click_to_email, form_submit = d.form_submit + excluded.form_submit;
  RETURN NEXT;
END $$;

`,
}
