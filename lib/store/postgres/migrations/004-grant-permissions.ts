/**
 * Migration 4: a grant's permissions (today's Duda API, Grant Site Access
 * with a permission list). NULL is every permission: what Grant Access, the
 * spec's path, gives. `set_grant_permissions` grants (or re-grants) with a
 * list or NULL under the same checks and locks as `set_grant`, and always
 * rewrites the permissions, so a grant made on either path has exactly the
 * permissions of the last grant. FROZEN: append a migration to change it.
 * `S` is the quoted schema.
 */
export const migration = {
  version: 4,
  name: 'grant permissions',
  sql: (S: string): string => `
ALTER TABLE ${S}.grants ADD COLUMN permissions jsonb;

CREATE FUNCTION ${S}.set_grant_permissions(p_owner text, p_account text, p_site text, p_permissions jsonb)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM ${S}.accounts a WHERE a.account_name = p_account AND a.owner = p_owner FOR KEY SHARE;
  IF NOT FOUND THEN RETURN 'no-account'; END IF;
  PERFORM 1 FROM ${S}.sites s WHERE s.site_name = p_site AND s.owner = p_owner FOR KEY SHARE;
  IF NOT FOUND THEN RETURN 'no-site'; END IF;
  INSERT INTO ${S}.grants (account_name, site_name, permissions) VALUES (p_account, p_site, p_permissions)
    ON CONFLICT (account_name, site_name) DO UPDATE SET permissions = excluded.permissions;
  RETURN 'ok';
END $$;
`,
}
