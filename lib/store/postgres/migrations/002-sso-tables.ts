/**
 * Migration 2: the tables of sign-in tokens and dashboard sessions
 * (postgres/sso.ts). FROZEN: append a migration to change them.
 * `drop_after` is on the database clock (a record's remaining life plus a
 * margin), past which the writes sweep the row; the engine clock alone
 * decides expiry. `S` is the quoted schema.
 */
export const migration = {
  version: 2,
  name: 'single sign-on tokens and dashboard sessions',
  sql: (S: string): string => `
CREATE TABLE ${S}.sso_tokens (
  digest text COLLATE "C" PRIMARY KEY,
  grant_rec jsonb NOT NULL,
  expires_at float8 NOT NULL,
  drop_after timestamptz NOT NULL
);
CREATE INDEX sso_tokens_by_drop ON ${S}.sso_tokens (drop_after);
CREATE TABLE ${S}.sessions (
  digest text COLLATE "C" PRIMARY KEY,
  grant_rec jsonb NOT NULL,
  expires_at float8 NOT NULL,
  drop_after timestamptz NOT NULL
);
CREATE INDEX sessions_by_drop ON ${S}.sessions (drop_after);
`,
}
