/**
 * Fetching the supported-agents source from a running mobisite service
 * (`GET {baseUrl}/agents`, HTTP Basic auth, JSON string body), with the
 * web `fetch` every runtime has.
 */
import { AgentsSourceError } from '../agents/matcher.js'

/** Where and how to fetch the agents source. */
export interface RemoteAgentsOptions {
  /** The API base, e.g. `https://mobisite.example.com/api`; `/agents` is appended. */
  baseUrl: string
  /** Master account user (HTTP Basic). */
  user: string
  /** Master account password (HTTP Basic). */
  password: string
  /** How often to fetch again, in ms. Default 300000 (5 minutes). */
  refreshInterval?: number
  /** Abort a fetch (headers and body) after this many ms. Default 5000. */
  timeout?: number
  /**
   * Where redirect confirmations go when `mobileRedirect` has a `siteName`:
   * the full URL, POSTed without a body. Default: the origin of `baseUrl` +
   * `/collect/{site_name}?e=redirect`.
   */
  collectUrl?: string
}

/** Bodies above this are refused unread: a served source is a few KB. */
const MAX_BODY_BYTES = 1 << 20

/**
 * Fetches the agents source once.
 * @throws AgentsSourceError with reason `fetch` on a network error, a
 * timeout, a non-200 status, an oversized body, or a body that is not a JSON string.
 */
export async function fetchAgents(options: RemoteAgentsOptions): Promise<string> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/agents`
  const fail = (why: string, cause?: unknown): AgentsSourceError =>
    new AgentsSourceError('fetch', `GET ${url}: ${why}`, '', cause === undefined ? undefined : { cause })
  const auth = base64(`${options.user}:${options.password}`)
  let res: Response
  try {
    res = await fetch(url, {
      headers: { authorization: `Basic ${auth}`, accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeout ?? 5000),
      // 'manual', not 'error' (which workerd refuses): a 3xx is then a non-200 failure, never followed.
      redirect: 'manual',
    })
  } catch (err) {
    throw fail(describe(err), err)
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined)
    throw fail(`HTTP ${res.status}`)
  }
  let text: string
  try {
    text = await readCapped(res)
  } catch (err) {
    throw fail(describe(err), err)
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw fail('the body is not JSON')
  }
  if (typeof body !== 'string') throw fail(`the body is a JSON ${body === null ? 'null' : typeof body}, not a string`)
  return body
}

async function readCapped(res: Response): Promise<string> {
  const declared = Number(res.headers.get('content-length'))
  if (declared > MAX_BODY_BYTES) {
    await res.body?.cancel().catch(() => undefined)
    throw new Error(`the body has ${declared} bytes; the limit is ${MAX_BODY_BYTES}`)
  }
  if (res.body === null) return ''
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined)
      throw new Error(`the body exceeds ${MAX_BODY_BYTES} bytes`)
    }
    text += decoder.decode(value, { stream: true })
  }
}

/** Base64 of a string's UTF-8 bytes, with what every runtime has (no Buffer at the edge). */
function base64(text: string): string {
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

function describe(err: unknown): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timed out'
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : ''
  return err instanceof Error ? `${err.message}${cause}` : String(err)
}
