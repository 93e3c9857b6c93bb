/**
 * Site and account names are unique regardless of letter case: `ABCD` cannot
 * be created beside `abcd`, though lookups stay exact. Every store compares
 * names under this one fold (ASCII letters only, like Lua's string.lower and,
 * for the ASCII names the engine accepts, PostgreSQL's lower()).
 */
export function foldName(name: string): string {
  return name.replace(/[A-Z]+/g, (letters) => letters.toLowerCase())
}
