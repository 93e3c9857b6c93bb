/**
 * The SQL of PostgresStore's analytics: the recording functions and the
 * period queries.
 *
 * Recording is one function call: it finds the site and takes a FOR KEY
 * SHARE lock on it (a Delete Site racing the visit waits and then drops what
 * the visit wrote, or wins first and the visit records nothing), then bumps
 * the site-day row, the two dimension-value rows, and inserts the
 * (visitor, system, geo) row of the day if new. Every recording locks the
 * site-day row first, so two recordings never take row locks in opposite
 * orders.
 *
 * Dimension values (browser/os, country/region) are interned to integer ids
 * in `dim_values`: dim 0 is system, 1 is geo.
 */

/** The CREATE FUNCTION statements, for the schema `S` (quoted). */
export function ANALYTICS_FUNCTIONS(S: string): string {
  return `
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
`
}

/** The period queries, for the schema `S` (quoted). Parameters: $1 site (or owner), $2 from day, $3 to day. */
export function analyticsQueries(S: string) {
  const site = `(SELECT id FROM ${S}.sites WHERE site_name = $1)`
  /** Per dimension value: sums and, for traffic, distinct visitors of that value. */
  const byValue = (dim: 0 | 1, traffic: boolean) => {
    const column = dim === 0 ? 'sys_id' : 'geo_id'
    const metrics = traffic
      ? 'sum(d.visits) AS visits, sum(d.page_views) AS page_views'
      : 'sum(d.click_to_call) AS click_to_call, sum(d.click_to_map) AS click_to_map, sum(d.click_to_email) AS click_to_email, sum(d.form_submit) AS form_submit'
    const visitors = traffic
      ? `, (SELECT count(DISTINCT x.visitor_id) FROM ${S}.day_visitors x
            WHERE x.site_id = t.site_id AND x.day BETWEEN $2 AND $3 AND x.${column} = t.dim_id) AS unique_visitors`
      : ''
    return `
SELECT v.k1, v.k2, t.*${visitors}
  FROM (SELECT d.site_id, d.dim_id, ${metrics}
          FROM ${S}.dim_days d
         WHERE d.site_id = ${site} AND d.day BETWEEN $2 AND $3
         GROUP BY d.site_id, d.dim_id) t
  JOIN ${S}.dim_values v ON v.id = t.dim_id AND v.dim = ${dim}`
  }
  return {
    traffic: `
SELECT coalesce(sum(d.visits), 0) AS visits, coalesce(sum(d.page_views), 0) AS page_views,
       (SELECT count(DISTINCT x.visitor_id) FROM ${S}.day_visitors x
         WHERE x.site_id = ${site} AND x.day BETWEEN $2 AND $3) AS unique_visitors
  FROM ${S}.site_days d
 WHERE d.site_id = ${site} AND d.day BETWEEN $2 AND $3`,
    activities: `
SELECT coalesce(sum(d.click_to_call), 0) AS click_to_call, coalesce(sum(d.click_to_map), 0) AS click_to_map,
       coalesce(sum(d.click_to_email), 0) AS click_to_email, coalesce(sum(d.form_submit), 0) AS form_submit
  FROM ${S}.site_days d
 WHERE d.site_id = ${site} AND d.day BETWEEN $2 AND $3`,
    trafficBySystem: byValue(0, true),
    trafficByGeo: byValue(1, true),
    activitiesBySystem: byValue(0, false),
    activitiesByGeo: byValue(1, false),
    /**
     * $1 owner, $4 limit. Sums the owner's site-days (an index-only scan of
     * site_days_by_owner), finds the visits of the limit-th site, joins names
     * only for the sites at or above it (the tie-break needs them), then reads
     * page views and distinct visitors for the winners only.
     */
    mostTraffic: `
WITH ranked AS (
  SELECT d.site_id, sum(d.visits) AS visits
    FROM ${S}.site_days d
   WHERE d.owner = $1 AND d.day BETWEEN $2 AND $3
   GROUP BY d.site_id
  HAVING sum(d.visits) > 0
), cutoff AS (
  SELECT visits FROM ranked ORDER BY visits DESC OFFSET $4 - 1 LIMIT 1
), top AS (
  SELECT r.site_id, s.site_name, r.visits
    FROM ranked r JOIN ${S}.sites s ON s.id = r.site_id
   WHERE r.visits >= coalesce((SELECT visits FROM cutoff), 0)
   ORDER BY r.visits DESC, s.site_name
   LIMIT $4
)
SELECT top.site_name, top.visits,
       (SELECT sum(d.page_views) FROM ${S}.site_days d WHERE d.site_id = top.site_id AND d.day BETWEEN $2 AND $3) AS page_views,
       (SELECT count(DISTINCT x.visitor_id) FROM ${S}.day_visitors x
         WHERE x.site_id = top.site_id AND x.day BETWEEN $2 AND $3) AS unique_visitors
  FROM top`,
  }
}
