/**
 * Migration 3: names unique regardless of letter case, folded like every
 * store does (lib/store/shared/name-fold.ts: A-Z to a-z, nothing else). The
 * unique indexes of migration 1 used lower(), which folds by the database's
 * LC_CTYPE, non-ASCII letters too; translate() is immutable, so it can be
 * indexed. FROZEN: append a migration to change them. `S` is the quoted schema.
 */
export const migration = {
  version: 3,
  name: 'names folded like every store (ASCII letters only), whatever the database locale',
  sql: (S: string): string => `
DROP INDEX ${S}.sites_name_folded;
CREATE UNIQUE INDEX sites_name_folded ON ${S}.sites (translate(site_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'));
DROP INDEX ${S}.accounts_name_folded;
CREATE UNIQUE INDEX accounts_name_folded ON ${S}.accounts (translate(account_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'));
`,
}
