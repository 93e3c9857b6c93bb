/**
 * The served `/redirect.js` run in node:vm, with stand-ins for what a page
 * gives it: `navigator` (userAgent, userAgentData, sendBeacon), `document`
 * (currentScript with its attributes, a cookie jar), `location` (replace is
 * recorded), `localStorage` and `window.top`. Nothing of Node reaches the
 * script but `URL` and `URLSearchParams`, which every browser it targets has.
 */
import http from 'node:http'
import vm from 'node:vm'

/** A page that loads the script. */
export interface PageSetup {
  /** The page's URL. */
  url: string
  userAgent?: string
  /** `navigator.userAgentData`; absent by default (Safari, Firefox). */
  userAgentData?: { mobile?: unknown; brands?: unknown[] }
  /** The `<script>` tag's attributes (`data-mobile-url`, `data-site`); no tag at all with `null`. */
  attributes?: Record<string, string> | null
  /** The tag's resolved src. Default `https://mobisite.example.com/redirect.js`. */
  src?: string
  /** Cookies already there, name → value; the run's changes land here too. */
  jar?: Map<string, string>
  /** localStorage's items (shared across runs to model one browser), or 'throws' for blocked storage. */
  storage?: Map<string, string> | 'throws'
  /** What sendBeacon answers; `undefined` leaves navigator.sendBeacon out. Default true. */
  beacon?: boolean | undefined
  /** In a frame: window.top is another window. */
  framed?: boolean
}

/** What one run did. */
export interface PageRun {
  /** Every `location.replace` argument. */
  replaced: string[]
  /** Every sendBeacon URL. */
  beacons: string[]
  /** Every string assigned to document.cookie. */
  cookieWrites: string[]
  warnings: unknown[][]
  /** The root element's display after the run. */
  display: string
  /** `window.mobisiteRedirect`, as the script left it. */
  api: { isMobile(ua?: unknown): boolean; version: string } | undefined
  jar: Map<string, string>
}

/** Runs `body` as a `<script>` of the page `setup` describes. */
export function runScript(body: string, setup: PageSetup): PageRun {
  const jar = setup.jar ?? new Map<string, string>()
  const run: PageRun = { replaced: [], beacons: [], cookieWrites: [], warnings: [], display: '', api: undefined, jar }
  const url = new URL(setup.url)
  const attributes = setup.attributes === undefined ? {} : setup.attributes
  const script =
    attributes === null
      ? null
      : {
          src: setup.src ?? 'https://mobisite.example.com/redirect.js',
          getAttribute: (name: string) => (Object.hasOwn(attributes, name) ? (attributes[name] as string) : null),
        }
  const root = { style: { display: '' } }
  const document = {
    currentScript: script,
    documentElement: root,
    get cookie() {
      return [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    },
    set cookie(line: string) {
      run.cookieWrites.push(line)
      const [pair = '', ...attributes] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      if (attributes.some((a) => a.trim().toLowerCase() === 'max-age=0')) jar.delete(name)
      else jar.set(name, pair.slice(eq + 1).trim())
    },
  }
  const navigator: Record<string, unknown> = { userAgent: setup.userAgent ?? '' }
  if (setup.userAgentData !== undefined) navigator.userAgentData = setup.userAgentData
  const beacon = 'beacon' in setup ? setup.beacon : true
  if (beacon !== undefined)
    navigator.sendBeacon = (target: string) => {
      run.beacons.push(target)
      return beacon
    }
  const location = {
    protocol: url.protocol,
    host: url.host,
    pathname: url.pathname,
    search: url.search,
    hash: url.hash,
    replace: (target: string) => void run.replaced.push(target),
  }
  const storage = setup.storage ?? new Map<string, string>()
  const window: Record<string, unknown> = {
    document,
    navigator,
    location,
    URL,
    URLSearchParams,
    console: { warn: (...args: unknown[]) => void run.warnings.push(args) },
  }
  Object.defineProperty(window, 'localStorage', {
    get() {
      if (storage === 'throws') throw new Error('SecurityError: storage is blocked')
      return {
        getItem: (key: string) => storage.get(key) ?? null,
        setItem: (key: string, value: string) => void storage.set(key, value),
      }
    },
  })
  window.window = window
  window.top = setup.framed ? {} : window
  vm.runInNewContext(body, window, { timeout: 5000 })
  run.display = root.style.display
  run.api = window.mobisiteRedirect as PageRun['api']
  return run
}

/** Only `window.mobisiteRedirect` of a page without the tag: the verdict function for `isMobile(ua)` checks. */
export function scriptVerdict(body: string): (ua: string) => boolean {
  const api = runScript(body, { url: 'https://www.example.com/', attributes: null }).api
  if (api === undefined) throw new Error('the script defined no window.mobisiteRedirect')
  return (ua) => api.isMobile(ua)
}

/** A raw answer: no automatic decompression, no headers added. */
export interface RawAnswer {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
}

/** One HTTP request with exactly these headers (fetch would add Accept-Encoding and decompress). */
export function rawRequest(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}
