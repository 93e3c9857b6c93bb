/**
 * Shared gate for the browser tests: Debian's Chromium driven by
 * playwright-core ({@link browserOrSkip}) or puppeteer-core
 * ({@link puppeteerOrSkip}), with the same binary, flags and skip rule.
 * Without a Chromium binary the file skips and says why; CI (.ci/run)
 * installs Chromium and sets CHROMIUM_PATH, so there a missing or broken
 * browser FAILS the file instead.
 */
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'
import type { Browser as PuppeteerBrowser } from 'puppeteer-core'
import type { Test as Tap } from 'tap'

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/**
 * The Chromium to use: CHROMIUM_PATH, else the first Debian location that
 * exists. `CHROMIUM_PATH=none` means no browser even where one is installed
 * (.ci/run's lane without services runs the suite as a fresh machine would).
 */
export const CHROMIUM_PATH: string | undefined =
  process.env.CHROMIUM_PATH === 'none'
    ? undefined
    : process.env.CHROMIUM_PATH || CANDIDATES.find((path) => existsSync(path))

/** Root in a container needs --no-sandbox; the rest keep Chromium off the (closed) network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]

/**
 * Launches headless Chromium for a test file and closes it at teardown.
 * Returns undefined (after planning 0 with a reason) when there is no browser
 * and CHROMIUM_PATH was not set explicitly.
 */
export async function browserOrSkip(t: Tap, what: string): Promise<Browser | undefined> {
  if (!CHROMIUM_PATH) return skip(t, what)
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS })
  t.teardown(() => browser.close())
  return browser
}

/** {@link browserOrSkip} for puppeteer-core: the same Chromium, flags and skip rule. */
export async function puppeteerOrSkip(t: Tap, what: string): Promise<PuppeteerBrowser | undefined> {
  if (!CHROMIUM_PATH) return skip(t, what)
  // Loaded here: the playwright files need none of it.
  const { default: puppeteer } = await import('puppeteer-core')
  const browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS })
  t.teardown(() => browser.close())
  return browser
}

/** Plans 0 with the reason there is no browser. */
function skip(t: Tap, what: string): undefined {
  const why =
    process.env.CHROMIUM_PATH === 'none'
      ? 'CHROMIUM_PATH=none'
      : 'no Chromium found (set CHROMIUM_PATH or apt-get install chromium)'
  t.plan(0, `${why}: ${what} skipped`)
  return undefined
}
