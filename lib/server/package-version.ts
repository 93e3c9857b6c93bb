/**
 * The version of this package, from its own package.json, for `--version`
 * and `mobisite_build_info`. This file is built twice, as ESM and as
 * CommonJS, so it can use neither `import.meta.url` (a syntax error in
 * CommonJS) nor `__filename` (absent in ESM); and importing package.json
 * would copy it into each build folder. So the file's own location comes
 * from V8's call sites, which name it in both builds and from source (tsx),
 * and the nearest package.json named mobisite above it gives the version.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** What {@link packageVersion} answers when no package.json of mobisite is found (a bundle, say). */
export const UNKNOWN_VERSION = 'unknown'

let cached: string | undefined

/** The `version` of mobisite's package.json, read once; {@link UNKNOWN_VERSION} when it cannot be found. */
export function packageVersion(): string {
  cached ??= versionAbove(ownFile())
  return cached
}

/** This module's file: a path, or a `file:` URL under ESM. */
function ownFile(): string | undefined {
  const prepare = Error.prepareStackTrace
  const limit = Error.stackTraceLimit
  try {
    // An app may have set the limit to 0 for speed; one frame is all this needs.
    Error.stackTraceLimit = 1
    Error.prepareStackTrace = (_error, frames) => frames
    const frames = new Error().stack as unknown as NodeJS.CallSite[] | undefined
    return frames?.[0]?.getFileName() ?? undefined
  } catch {
    return undefined
  } finally {
    Error.prepareStackTrace = prepare
    Error.stackTraceLimit = limit
  }
}

/** The version in the nearest package.json named mobisite above `file`, a few folders up at most. */
function versionAbove(file: string | undefined): string {
  if (file === undefined) return UNKNOWN_VERSION
  let dir = dirname(file.startsWith('file:') ? fileURLToPath(file) : file)
  // Source: lib/server/ is two below the root; a build: dist/{esm,cjs}/lib/server/ is four below.
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown }
      // dist/cjs has a package.json of its own, without a name: that one is passed over.
      if (pkg.name === 'mobisite' && typeof pkg.version === 'string') return pkg.version
    } catch {
      // None here (or not JSON): look one folder up.
    }
    dir = dirname(dir)
  }
  return UNKNOWN_VERSION
}
