/**
 * PL/pgSQL functions behind PostgresStore's rules that need more than one
 * statement: the first-publish charge, Delete Site with its cascade, grants
 * checked against both owners, and the daily limit. Each is called by ONE
 * statement, so it is one round trip and one transaction; the row locks it
 * takes (FOR UPDATE, FOR KEY SHARE) are what make it atomic against every
 * other call, from this process or any other.
 *
 * Expectations (`p_created`, `p_build`) are NULL when not given.
 */

/** The CREATE FUNCTION statements, for the schema `S` (quoted). */
export function SITE_FUNCTIONS(S: string): string {
  return `
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
`
}
