/**
 * Migration 6: analytics in one row per site-day (issue 26, item 3: 12,911
 * bytes and 44 rows per site-day in benchmark/ingest.ts's shape before,
 * 1,933 bytes and 1 row after; see docs/postgres.md). FROZEN once released:
 * append a migration to change it. `S` is the quoted schema.
 *
 * Why: a row costs a 24-byte header, a line pointer and an entry in each
 * index, and `dim_days` rows (13 a site-day) were rewritten by every batch;
 * `day_visitors` kept each visitor id as text (a UUID, 37 bytes) in a row
 * and in its primary key. Now:
 * - a site-day's dimension values are parallel arrays of `site_days`
 *   (`dim_ids`, `dim_pages`, and `dim_counts`: 5 counters a value, visits
 *   then the four activities), bounded by the cap of 005, which is kept as
 *   it was (`n_sys`/`n_geo` read and raised under the site-day row lock);
 * - a visitor is a 64-bit hash of its id, computed here in SQL (`visitor_hash`)
 *   so converted and new rows agree: collisions are negligible below
 *   billions of visitors, so counts stay exact. A site-day's first
 *   `visitor_slots()` distinct (hash, system id, geo id) triples are arrays
 *   of its row (`vis_hash`, `vis_sys`, `vis_geo`); the rest go to
 *   `visitor_overflow`, one row each, so a flood of new ids costs each batch
 *   O(slots) on the row plus an index insert per new triple, never a
 *   rewrite growing with the day's visitors;
 * - `record_events` reads and locks each site-day of a batch once (INSERT
 *   ... DO NOTHING, then SELECT ... FOR UPDATE, in the callers' site/day
 *   order) and writes it once: one new row version per site-day a batch.
 *
 * Existing data is converted: `dim_days` counters into the arrays (same
 * sums), `day_visitors` hashed and distributed like new visitors. The old
 * tables and `capped_dim_id` go; `record_visit` and `record_activity` now
 * record through `record_events` (no cap, as before); `delete_site` and
 * `drop_analytics_before` delete from the new layout. Visitor ids are no
 * longer kept, so exports carry this store's exact sketches of the hashes
 * (state-analytics.ts).
 */
export const migration = {
  version: 6,
  name: 'analytics: one row per site-day, hashed visitors',
  sql: (S: string): string => `
ALTER TABLE ${S}.site_days
  ADD COLUMN dim_ids integer[] NOT NULL DEFAULT '{}',
  ADD COLUMN dim_pages bigint[] NOT NULL DEFAULT '{}',
  ADD COLUMN dim_counts integer[] NOT NULL DEFAULT '{}',
  ADD COLUMN vis_hash bigint[] NOT NULL DEFAULT '{}',
  ADD COLUMN vis_sys integer[] NOT NULL DEFAULT '{}',
  ADD COLUMN vis_geo integer[] NOT NULL DEFAULT '{}';

-- The visitor triples of site-days past visitor_slots().
CREATE TABLE ${S}.visitor_overflow (
  site_id bigint NOT NULL,
  day date NOT NULL,
  vh bigint NOT NULL,
  sys_id integer NOT NULL,
  geo_id integer NOT NULL,
  PRIMARY KEY (site_id, day, vh, sys_id, geo_id)
);

-- The first 8 bytes of md5(visitor id), as a bigint.
CREATE FUNCTION ${S}.visitor_hash(p_id text) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT ('x' || left(md5(p_id), 16))::bit(64)::bigint
$$;

-- How many visitor triples a site-day row holds before visitor_overflow.
CREATE FUNCTION ${S}.visitor_slots() RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 512 $$;

-- The site-day's visitor arrays (io_*) with the new triples (p_*) added
-- while there is room; the rest of the new ones go to visitor_overflow.
-- EXCEPT is a hash or sort set operation: O(slots + new), never a scan of
-- the arrays per triple.
CREATE FUNCTION ${S}.add_visitors(p_site bigint, p_day date, INOUT io_h bigint[], INOUT io_s integer[],
  INOUT io_g integer[], p_h bigint[], p_s integer[], p_g integer[])
LANGUAGE plpgsql AS $$
DECLARE room integer := ${S}.visitor_slots() - cardinality(io_h);
BEGIN
  IF cardinality(p_h) = 0 THEN RETURN; END IF;
  WITH fresh AS (
    SELECT h, s, g FROM unnest(p_h, p_s, p_g) AS n(h, s, g)
    EXCEPT SELECT h, s, g FROM unnest(io_h, io_s, io_g) AS o(h, s, g)
  ), ranked AS (
    SELECT h, s, g, row_number() OVER (ORDER BY h, s, g) AS rn FROM fresh
  ), spilled AS (
    INSERT INTO ${S}.visitor_overflow (site_id, day, vh, sys_id, geo_id)
    SELECT p_site, p_day, h, s, g FROM ranked WHERE rn > room ORDER BY h, s, g
    ON CONFLICT DO NOTHING
  )
  SELECT io_h || coalesce(array_agg(h ORDER BY rn), '{}'), io_s || coalesce(array_agg(s ORDER BY rn), '{}'),
         io_g || coalesce(array_agg(g ORDER BY rn), '{}')
    INTO io_h, io_s, io_g
    FROM ranked WHERE rn <= room;
END $$;

-- Converts the old tables: counters summed per value, visitors hashed.
UPDATE ${S}.site_days d
   SET dim_ids = a.ids, dim_pages = a.pages,
       dim_counts = ARRAY(SELECT u.c FROM unnest(a.counts) WITH ORDINALITY AS u(c, o) ORDER BY u.o)
  FROM (SELECT site_id, day, array_agg(dim_id ORDER BY dim_id) AS ids, array_agg(page_views ORDER BY dim_id) AS pages,
               array_agg(ARRAY[visits, click_to_call, click_to_map, click_to_email, form_submit] ORDER BY dim_id) AS counts
          FROM ${S}.dim_days GROUP BY site_id, day) a
 WHERE d.site_id = a.site_id AND d.day = a.day;
CREATE TEMPORARY TABLE mobisite_006_visitors ON COMMIT DROP AS
SELECT site_id, day, h, sys_id, geo_id, row_number() OVER (PARTITION BY site_id, day ORDER BY h, sys_id, geo_id) AS rn
  FROM (SELECT DISTINCT site_id, day, ${S}.visitor_hash(visitor_id) AS h, sys_id, geo_id FROM ${S}.day_visitors) x;
UPDATE ${S}.site_days d
   SET vis_hash = a.h, vis_sys = a.s, vis_geo = a.g
  FROM (SELECT site_id, day, array_agg(h ORDER BY rn) AS h, array_agg(sys_id ORDER BY rn) AS s,
               array_agg(geo_id ORDER BY rn) AS g
          FROM mobisite_006_visitors WHERE rn <= ${S}.visitor_slots() GROUP BY site_id, day) a
 WHERE d.site_id = a.site_id AND d.day = a.day;
INSERT INTO ${S}.visitor_overflow (site_id, day, vh, sys_id, geo_id)
SELECT site_id, day, h, sys_id, geo_id FROM mobisite_006_visitors WHERE rn > ${S}.visitor_slots();
DROP TABLE mobisite_006_visitors;
DROP FUNCTION ${S}.capped_dim_id(bigint, date, smallint, text, text, integer);
DROP TABLE ${S}.dim_days;
DROP TABLE ${S}.day_visitors;

-- Records a batch as groups of identical events, as in 005 (same
-- parameters and answers). Groups of one site-day are consecutive (callers
-- sort them by site and day, which is also the order locks are taken in):
-- each run of them is read under the row lock into array variables
-- (PL/pgSQL edits those in place), added to, and written back by one UPDATE.
-- The cap rule is 005's: a value new to the day is counted in n_sys/n_geo
-- while under p_cap, else recorded as ('(other)', '(other)'), never counted
-- and never interned.
CREATE OR REPLACE FUNCTION ${S}.record_events(p_sites text[], p_days date[], p_kinds smallint[], p_counts integer[],
  p_pages bigint[], p_browsers text[], p_oses text[], p_countries text[], p_regions text[],
  p_vgroup integer[], p_vids text[], p_cap integer, p_first date,
  OUT o_ord integer, OUT o_owner text, OUT o_build text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  n integer := coalesce(array_length(p_sites, 1), 0);
  i integer := 1;
  j integer;
  k integer;
  vj integer := 1;
  v integer;
  v_id bigint;
  v_pv bigint;
  v_c integer[];
  v_val integer[] := '{0, 0}';
  ks text[];
  t integer[];
  t_pv bigint;
  a_ids integer[];
  a_pages bigint[];
  a_counts integer[];
  a_n integer[];
  o_h bigint[];
  o_s integer[];
  o_g integer[];
  c record;
  vg integer[];
  vh bigint[];
  nh bigint[];
  ns integer[];
  ng integer[];
BEGIN
  -- The batch's visitors, hashed once, in group order.
  SELECT coalesce(array_agg(u.g ORDER BY u.g), '{}'), coalesce(array_agg(${S}.visitor_hash(u.vid) ORDER BY u.g), '{}')
    INTO vg, vh FROM unnest(p_vgroup, p_vids) AS u(g, vid);
  WHILE i <= n LOOP
    j := i;
    WHILE j < n AND p_sites[j + 1] = p_sites[i] AND p_days[j + 1] = p_days[i] LOOP j := j + 1; END LOOP;
    v_id := NULL;
    SELECT s.id, s.owner, s.rec->>'build' INTO v_id, o_owner, o_build
      FROM ${S}.sites s WHERE s.site_name = p_sites[i] FOR KEY SHARE;
    IF v_id IS NOT NULL THEN
      FOR g IN i .. j LOOP o_ord := g; RETURN NEXT; END LOOP;
    END IF;
    IF v_id IS NULL OR (p_first IS NOT NULL AND p_days[i] < p_first) THEN
      WHILE vj <= cardinality(vg) AND vg[vj] <= j LOOP vj := vj + 1; END LOOP;
      i := j + 1;
      CONTINUE;
    END IF;
    INSERT INTO ${S}.site_days (site_id, day, owner) VALUES (v_id, p_days[i], o_owner) ON CONFLICT DO NOTHING;
    SELECT dim_ids, dim_pages, dim_counts, ARRAY[n_sys, n_geo], vis_hash, vis_sys, vis_geo
      INTO a_ids, a_pages, a_counts, a_n, o_h, o_s, o_g
      FROM ${S}.site_days WHERE site_id = v_id AND day = p_days[i] FOR UPDATE;
    t := '{0, 0, 0, 0, 0}';
    t_pv := 0;
    nh := '{}'; ns := '{}'; ng := '{}';
    FOR g IN i .. j LOOP
      v_c := '{0, 0, 0, 0, 0}';
      v_pv := CASE WHEN p_kinds[g] = 0 THEN p_pages[g] ELSE 0 END;
      v_c[p_kinds[g] + 1] := p_counts[g];
      t_pv := t_pv + v_pv;
      FOR a IN 1 .. 5 LOOP t[a] := t[a] + v_c[a]; END LOOP;
      FOR dm IN 0 .. 1 LOOP
        ks := CASE dm WHEN 0 THEN ARRAY[p_browsers[g], p_oses[g]] ELSE ARRAY[p_countries[g], p_regions[g]] END;
        v := NULL;
        SELECT id INTO v FROM ${S}.dim_values WHERE dim = dm AND k1 = ks[1] AND k2 = ks[2];
        k := array_position(a_ids, v);
        IF k IS NULL THEN
          IF ks[1] = '(other)' AND ks[2] = '(other)' THEN
            v := coalesce(v, ${S}.dim_id(dm::smallint, ks[1], ks[2]));
          ELSIF a_n[dm + 1] >= p_cap THEN
            v := ${S}.dim_id(dm::smallint, '(other)', '(other)');
          ELSE
            v := coalesce(v, ${S}.dim_id(dm::smallint, ks[1], ks[2]));
            a_n[dm + 1] := a_n[dm + 1] + 1;
          END IF;
          k := array_position(a_ids, v);
          IF k IS NULL THEN
            a_ids := a_ids || v;
            a_pages := a_pages || 0::bigint;
            FOR a IN 1 .. 5 LOOP a_counts := a_counts || 0; END LOOP;
            k := cardinality(a_ids);
          END IF;
        END IF;
        a_pages[k] := a_pages[k] + v_pv;
        FOR a IN 1 .. 5 LOOP a_counts[(k - 1) * 5 + a] := a_counts[(k - 1) * 5 + a] + v_c[a]; END LOOP;
        v_val[dm + 1] := v;
      END LOOP;
      WHILE vj <= cardinality(vg) AND vg[vj] <= g LOOP
        IF vg[vj] = g AND p_kinds[g] = 0 THEN
          nh := nh || vh[vj]; ns := ns || v_val[1]; ng := ng || v_val[2];
        END IF;
        vj := vj + 1;
      END LOOP;
    END LOOP;
    SELECT * INTO c FROM ${S}.add_visitors(v_id, p_days[i], o_h, o_s, o_g, nh, ns, ng);
    UPDATE ${S}.site_days SET visits = visits + t[1], page_views = page_views + t_pv, click_to_call = click_to_call + t[2],
           click_to_map = click_to_map + t[3], click_to_email = click_to_email + t[4], form_submit = form_submit + t[5],
           n_sys = a_n[1], n_geo = a_n[2], dim_ids = a_ids, dim_pages = a_pages, dim_counts = a_counts,
           -- The column itself when nothing was added keeps its TOAST value: a full day is not rewritten.
           vis_hash = CASE WHEN cardinality(c.io_h) > cardinality(o_h) THEN c.io_h ELSE vis_hash END,
           vis_sys = CASE WHEN cardinality(c.io_h) > cardinality(o_h) THEN c.io_s ELSE vis_sys END,
           vis_geo = CASE WHEN cardinality(c.io_h) > cardinality(o_h) THEN c.io_g ELSE vis_geo END
     WHERE site_id = v_id AND day = p_days[i];
    i := j + 1;
  END LOOP;
END $$;

-- One visit or activity, through record_events without a cap or retention (as before).
CREATE OR REPLACE FUNCTION ${S}.record_visit(p_site text, p_day date, p_visitor text, p_pages bigint,
  p_browser text, p_os text, p_country text, p_region text, OUT o_owner text, OUT o_build text)
RETURNS SETOF record LANGUAGE sql AS $$
  SELECT r.o_owner, r.o_build FROM ${S}.record_events(ARRAY[p_site], ARRAY[p_day], ARRAY[0::smallint], ARRAY[1],
    ARRAY[p_pages], ARRAY[p_browser], ARRAY[p_os], ARRAY[p_country], ARRAY[p_region], ARRAY[1], ARRAY[p_visitor],
    2147483647, NULL) r
$$;
CREATE OR REPLACE FUNCTION ${S}.record_activity(p_site text, p_day date, p_kinds integer[],
  p_browser text, p_os text, p_country text, p_region text, OUT o_owner text, OUT o_build text)
RETURNS SETOF record LANGUAGE sql AS $$
  SELECT r.o_owner, r.o_build FROM ${S}.record_events(ARRAY[p_site], ARRAY[p_day],
    ARRAY[array_position(p_kinds, 1)::smallint], ARRAY[1], ARRAY[0::bigint], ARRAY[p_browser], ARRAY[p_os],
    ARRAY[p_country], ARRAY[p_region], '{}'::integer[], '{}'::text[], 2147483647, NULL) r
$$;

CREATE OR REPLACE FUNCTION ${S}.delete_site(p_owner text, p_site text, p_created float8, p_build text)
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
  DELETE FROM ${S}.visitor_overflow WHERE site_id = v_id;
  RETURN true;
END $$;

CREATE OR REPLACE FUNCTION ${S}.drop_analytics_before(p_first date, p_limit integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  WITH gone AS (
    DELETE FROM ${S}.site_days WHERE (site_id, day) IN (
      SELECT site_id, day FROM ${S}.site_days WHERE day < p_first LIMIT p_limit
    ) RETURNING site_id, day
  ), visitors AS (
    DELETE FROM ${S}.visitor_overflow x USING gone g WHERE x.site_id = g.site_id AND x.day = g.day
  )
  SELECT count(*) INTO n FROM gone;
  RETURN n;
END $$;
`,
}
