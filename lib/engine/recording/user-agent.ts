/**
 * Reduces a User-Agent to the `system` dimension of the analytics:
 * `"<browser name> <major version>"` and the OS name, "Unknown" for what
 * ua-parser-js (MIT 1.x line; 2.x is AGPL) cannot tell.
 *
 * Parsing costs about 10 µs, while real traffic repeats a few hundred distinct
 * User-Agents, so an LRU cache sits in front of the parser.
 *
 * ua-parser-js is loaded on first use, not when the package is imported: most
 * processes (the redirect middleware, an API that records no visits) never
 * parse a User-Agent, and loading it is a large share of the import time.
 * lru-cache comes with it (5 ms of every import otherwise).
 */
import type { LRUCache } from 'lru-cache'

/** The value used for any part of a dimension that is not known. */
export const UNKNOWN = 'Unknown'

/** What the `system` dimension keeps of a User-Agent. */
export interface SystemInfo {
  /** Browser name and major version, e.g. "Chrome 120"; the name alone when no version is known. */
  browser: string
  /** OS name, e.g. "iOS". */
  os: string
}

/** ua-parser-js 1.x reads only this many characters (after leading whitespace). */
const UA_MAX_LENGTH = 500

const UNKNOWN_SYSTEM: SystemInfo = Object.freeze({ browser: UNKNOWN, os: UNKNOWN })
/** The part of a ua-parser-js 1.x instance used here. */
interface Parser {
  setUA(userAgent: string): unknown
  getBrowser(): { name?: string; major?: string }
  getOS(): { name?: string }
}

let parser: Parser | undefined
let loading: Promise<void> | undefined

/**
 * What must settle before {@link systemOf} can reduce this User-Agent: the
 * loading of ua-parser-js the first time one needs parsing, else nothing
 * (undefined), so the recording path awaits only once per process.
 */
export function userAgentParserReady(userAgent: unknown): Promise<void> | undefined {
  if (parser !== undefined || typeof userAgent !== 'string' || userAgent === '') return undefined
  loading ??= Promise.all([import('ua-parser-js'), import('lru-cache')]).then(([module, lru]) => {
    const UAParser = ((module as { default?: unknown }).default ?? module) as new () => Parser
    cache = new lru.LRUCache<string, SystemInfo>({ max: 5000 })
    parser = new UAParser()
  })
  return loading
}

/** The load of ua-parser-js while it is under way, else undefined. */
export function userAgentParserLoading(): Promise<void> | undefined {
  return parser === undefined ? loading : undefined
}

/** Made with the parser, as it is the parser's results it holds. */
let cache: LRUCache<string, SystemInfo> | undefined

function parse(userAgent: string): SystemInfo {
  if (parser === undefined) throw new Error('ua-parser-js is not loaded yet: await userAgentParserReady() first')
  parser.setUA(userAgent)
  const browser = parser.getBrowser()
  const os = parser.getOS()
  const name = browser.name?.trim()
  const major = browser.major?.trim()
  return Object.freeze({
    browser: name ? (major ? `${name} ${major}` : name) : UNKNOWN,
    os: os.name?.trim() || UNKNOWN,
  })
}

/**
 * The system dimension of a User-Agent. Returned objects are shared and
 * frozen. Absent or empty User-Agents are Unknown/Unknown. A non-empty one
 * needs {@link userAgentParserReady} to have settled.
 */
export function systemOf(userAgent: string | undefined): SystemInfo {
  if (userAgent === undefined || userAgent === '') return UNKNOWN_SYSTEM
  // The parser ignores what lies beyond its limit, so the cache key does too:
  // an 8 KB header neither bloats the cache nor misses it.
  const key = userAgent.length > UA_MAX_LENGTH ? userAgent.trimStart().slice(0, UA_MAX_LENGTH) : userAgent
  let info = cache?.get(key)
  if (info === undefined) {
    info = parse(key)
    cache!.set(key, info)
  }
  return info
}
