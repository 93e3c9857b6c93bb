/**
 * Shared gate for the browser tests: Debian's Chromium driven by
 * playwright-core. Without a Chromium binary the file skips and says why;
 * CI (.ci/run) installs Chromium and sets CHROMIUM_PATH, so there a missing
 * or broken browser FAILS the file instead.
 */
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'
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

/**
 * Launches headless Chromium for a test file and closes it at teardown.
 * Returns undefined (after planning 0 with a reason) when there is no browser
 * and CHROMIUM_PATH was not set explicitly.
 */
export async function browserOrSkip(t: Tap, what: string): Promise<Browser | undefined> {
  if (!CHROMIUM_PATH) {
    const why =
      process.env.CHROMIUM_PATH === 'none'
        ? 'CHROMIUM_PATH=none'
        : 'no Chromium found (set CHROMIUM_PATH or apt-get install chromium)'
    t.plan(0, `${why}: ${what} skipped`)
    return undefined
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Root in a container needs --no-sandbox; the rest keep Chromium off the (closed) network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  })
  t.teardown(() => browser.close())
  return browser
}
