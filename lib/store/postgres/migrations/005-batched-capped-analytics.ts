/**
 * Migration 5: analytics recorded in batches, under a cardinality cap and a
 * retention. FROZEN once released: append a migration to change it. `S` is
 * the quoted schema.
 *
 * - `site_days.n_sys`, `n_geo`: the distinct values of each dimension the
 *   site-day holds. A new value once the count has reached the cap is
 *   recorded as ('(other)', '(other)'), which is not counted; the count is
 *   read and raised under the site-day row's lock (the row is upserted
 *   first), so concurrent batches never pass the cap. Days recorded before
 *   this migration start at 0: they may end with up to twice the cap.
 * - `record_events`: one call records a whole batch, as groups of identical
 *   events (the store adds them up first), each atomic with the read of its
 *   site as `record_visit` / `record_activity` are, the visitors in one
 *   statement; it answers (group, owner, build) for each group whose site
 *   exists. Events of days before `p_first` (retention) are not recorded.
 * - `drop_analytics_before`: deletes whole days before a day, at most
 *   `p_limit` site-days per call (the store calls it off the hot path).
 */
export const migration = {
  version: 5,
  name: 'analytics in batches, with a cap on values per dimension and retention',
  sql: (S: string): string => `
ALTER TABLE ${S}.site_days ADD COLUMN n_sys integer NOT NULL DEFAULT 0, ADD COLUMN n_geo integer NOT NULL DEFAULT 0;
CREATE INDEX site_days_by_day ON ${S}.site_days (day);

-- The id a value of dimension p_dim is recorded under for the site-day: its
-- own when the day has it already or is under the cap (counted then), else
-- the id of ('(other)', '(other)'). The caller holds the site-day row lock.
CREATE FUNCTION ${S}.capped_dim_id(p_site bigint, p_day date, p_dim smallint, p_k1 text, p_k2 text, p_cap integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE v integer;
BEGIN
  SELECT id INTO v FROM ${S}.dim_values WHERE dim = p_dim AND k1 = p_k1 AND k2 = p_k2;
  IF v IS NOT NULL THEN
    PERFORM 1 FROM ${S}.dim_days WHERE site_id = p_site AND day = p_day AND dim_id = v;
    IF FOUND THEN RETURN v; END IF;
  END IF;
  IF p_k1 = '(other)' AND p_k2 = '(other)' THEN RETURN coalesce(v, ${S}.dim_id(p_dim, p_k1, p_k2)); END IF;
  IF p_dim = 0 THEN
    UPDATE ${S}.site_days SET n_sys = n_sys + 1 WHERE site_id = p_site AND day = p_day AND n_sys < p_cap;
  ELSE
    UPDATE ${S}.site_days SET n_geo = n_geo + 1 WHERE site_id = p_site AND day = p_day AND n_geo < p_cap;
  END IF;
  IF NOT FOUND THEN RETURN ${S}.dim_id(p_dim, '(other)', '(other)'); END IF;
  RETURN coalesce(v, ${S}.dim_id(p_dim, p_k1, p_k2));
END $$;

-- Records a batch as groups of identical events (same site, day, kind and
-- dimension values): group i counts p_counts[i] events of p_pages[i] pages in
-- all; p_kinds[i] is 0 for visits, else 1-4 (click_to_call, click_to_map,
-- click_to_email, form_submit). The visitors of the visit groups come as
-- pairs (p_vgroup[j], p_vids[j]) and are inserted by one statement at the
-- end. Callers send groups sorted by site and day, so concurrent batches
-- take the site-day row locks in one order. Answers (i, owner, build) for
-- each group whose site exists.
CREATE FUNCTION ${S}.record_events(p_sites text[], p_days date[], p_kinds smallint[], p_counts integer[],
  p_pages bigint[], p_browsers text[], p_oses text[], p_countries text[], p_regions text[],
  p_vgroup integer[], p_vids text[], p_cap integer, p_first date,
  OUT o_ord integer, OUT o_owner text, OUT o_build text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_sys integer;
  v_geo integer;
  v_n integer;
  v_pv bigint;
  v_k integer[];
  g_site bigint[] := '{}';
  g_sys integer[] := '{}';
  g_geo integer[] := '{}';
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_sites, 1), 0) LOOP
    SELECT s.id, s.owner, s.rec->>'build' INTO v_id, o_owner, o_build
      FROM ${S}.sites s WHERE s.site_name = p_sites[i] FOR KEY SHARE;
    CONTINUE WHEN NOT FOUND;
    o_ord := i;
    RETURN NEXT;
    CONTINUE WHEN p_first IS NOT NULL AND p_days[i] < p_first;
    v_n := CASE WHEN p_kinds[i] = 0 THEN p_counts[i] ELSE 0 END;
    v_pv := CASE WHEN p_kinds[i] = 0 THEN p_pages[i] ELSE 0 END;
    v_k := ARRAY[CASE WHEN p_kinds[i] = 1 THEN p_counts[i] ELSE 0 END, CASE WHEN p_kinds[i] = 2 THEN p_counts[i] ELSE 0 END,
                 CASE WHEN p_kinds[i] = 3 THEN p_counts[i] ELSE 0 END, CASE WHEN p_kinds[i] = 4 THEN p_counts[i] ELSE 0 END];
    INSERT INTO ${S}.site_days AS d (site_id, day, owner, visits, page_views, click_to_call, click_to_map, click_to_email, form_submit)
    VALUES (v_id, p_days[i], o_owner, v_n, v_pv, v_k[1], v_k[2], v_k[3], v_k[4])
    ON CONFLICT (site_id, day) DO UPDATE SET visits = d.visits + excluded.visits,
      page_views = d.page_views + excluded.page_views,
      click_to_call = d.click_to_call + excluded.click_to_call, click_to_map = d.click_to_map + excluded.click_to_map,
      click_to_email = d.click_to_email + excluded.click_to_email, form_submit = d.form_submit + excluded.form_submit;
    v_sys := ${S}.capped_dim_id(v_id, p_days[i], 0::smallint, p_browsers[i], p_oses[i], p_cap);
    v_geo := ${S}.capped_dim_id(v_id, p_days[i], 1::smallint, p_countries[i], p_regions[i], p_cap);
    INSERT INTO ${S}.dim_days AS d (site_id, day, dim_id, visits, page_views, click_to_call, click_to_map, click_to_email, form_submit)
    VALUES (v_id, p_days[i], v_sys, v_n, v_pv, v_k[1], v_k[2], v_k[3], v_k[4]),
           (v_id, p_days[i], v_geo, v_n, v_pv, v_k[1], v_k[2], v_k[3], v_k[4])
    ON CONFLICT (site_id, day, dim_id) DO UPDATE SET visits = d.visits + excluded.visits,
      page_views = d.page_views + excluded.page_views,
      click_to_call = d.click_to_call + excluded.click_to_call, click_to_map = d.click_to_map + excluded.click_to_map,
      click_to_email = d.click_to_email + excluded.click_to_email, form_submit = d.form_submit + excluded.form_submit;
    IF p_kinds[i] = 0 THEN
      g_site[i] := v_id;
      g_sys[i] := v_sys;
      g_geo[i] := v_geo;
    END IF;
  END LOOP;
  INSERT INTO ${S}.day_visitors (site_id, day, visitor_id, sys_id, geo_id)
  SELECT g_site[u.g], p_days[u.g], u.vid, g_sys[u.g], g_geo[u.g]
    FROM unnest(p_vgroup, p_vids) AS u(g, vid)
   WHERE g_site[u.g] IS NOT NULL
   ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING;
END $$;

-- Deletes at most p_limit site-days before p_first, with their dimension and
-- visitor rows; answers how many site-days went (p_limit: more may remain).
CREATE FUNCTION ${S}.drop_analytics_before(p_first date, p_limit integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  WITH gone AS (
    DELETE FROM ${S}.site_days WHERE (site_id, day) IN (
      SELECT site_id, day FROM ${S}.site_days WHERE day < p_first LIMIT p_limit
    ) RETURNING site_id, day
  ), dims AS (
    DELETE FROM ${S}.dim_days d USING gone g WHERE d.site_id = g.site_id AND d.day = g.day
  ), visitors AS (
    DELETE FROM ${S}.day_visitors x USING gone g WHERE x.site_id = g.site_id AND x.day = g.day
  )
  SELECT count(*) INTO n FROM gone;
  RETURN n;
END $$;
`,
}
