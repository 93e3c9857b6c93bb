/**
 * The key layout of keys.ts, in Lua, for the single-Redis scripts that reach
 * the keys of records other than those they were given (a deleted site's
 * accounts, a ranked site's analytics): on a single Redis every key is on
 * the one server, so a script may build them; on a cluster none does.
 */

/** `key(P, kind, name, rest)`: keys.ts's `prefix{kind:name}rest`, `%`, `{`, `}` percent-encoded. */
export const KEY_LUA = `
local function key(P, kind, name, rest)
  local n = string.gsub(name, '[%%{}]', function(c) return string.format('%%%02X', string.byte(c)) end)
  return P .. '{' .. kind .. ':' .. n .. '}' .. rest
end
`
