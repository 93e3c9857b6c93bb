/**
 * The text of `GET /redirect.js` for one agents source, and its gzip form,
 * each with a strong ETag: built once per source, so serving it costs what
 * a static file does.
 */
import { createHash } from 'node:crypto'
import { describeLinear } from '../../agents/linear.js'
import { DEFAULT_OPT_OUT } from '../decision.js'
import { redirectRuntime, type ScriptConfig } from './runtime.js'

/** One representation of the script: its bytes and their strong ETag. */
export interface ScriptRepresentation {
  readonly bytes: Buffer
  /** A strong entity tag, quotes included: a hash of `bytes`. */
  readonly etag: string
}

/** The script for one agents source. */
export interface ScriptBody {
  /** The agents source it was built from. */
  readonly source: string
  /** `window.mobisiteRedirect.version`. */
  readonly version: string
  /** The JavaScript text, UTF-8 (ASCII only, in fact). */
  readonly identity: ScriptRepresentation
  /** The same text gzipped: another representation, so another ETag. */
  readonly gzip: ScriptRepresentation
}

/**
 * The runtime's text as served: the function as the loader or compiler
 * emitted it, without indentation, blank lines and whole-line `//` comments.
 * Exact: the runtime keeps every comment on a line of its own and has no
 * multi-line string or template (runtime.ts says so), and the line breaks stay
 * where they were, so automatic semicolon insertion reads it as before.
 */
export const RUNTIME_TEXT: string = redirectRuntime
  .toString()
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('//'))
  .join('\n')

/**
 * JSON as a script literal that every ES2017 parser and any page encoding
 * read alike: everything past ASCII escaped (U+2028 and U+2029 end a string
 * literal before ES2019; the body is ASCII whatever the source holds).
 */
function scriptLiteral(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function representation(bytes: Buffer): ScriptRepresentation {
  return { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` }
}

/**
 * Builds the script for `source`. A source without a linear description
 * (describeLinear) is served as `agents: null`: the engine never serves one
 * (it refuses every source outside the linear form), and the script then lets
 * only the client hint decide rather than run an unknown regex on the page.
 */
export function buildScriptBody(source: string): ScriptBody {
  const agents = describeLinear(source) ?? null
  const version = createHash('sha256').update(RUNTIME_TEXT).update('\0').update(source).digest('hex').slice(0, 12)
  const config: ScriptConfig = { version, agents, ...DEFAULT_OPT_OUT }
  const text =
    `/* mobisite redirect.js ${version}: docs/redirect.md, "On any page" */\n` +
    `;(${RUNTIME_TEXT})(window, ${scriptLiteral(config)});\n`
  const identity = Buffer.from(text, 'utf8')
  // zlib loads with the first script built, not with the package root (3.6 ms of every import).
  const { gzipSync } = process.getBuiltinModule('node:zlib')
  return { source, version, identity: representation(identity), gzip: representation(gzipSync(identity, { level: 9 })) }
}
