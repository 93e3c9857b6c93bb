/**
 * Shared pieces of the state-file tests: a temporary folder, the CLI spawned
 * with `--state` (the banner and the JSON log lines kept apart; see cli.ts),
 * polling.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { type Cli, runCli as run, serveCli as serve, sleep } from './cli.js'

export { type Cli, sleep }

/** A new empty folder, removed after the test. */
export function folder(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-state-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Waits (polling every 20 ms, at most `ms`) until `check` holds. */
export async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > ms) throw new Error(`gave up waiting: ${what}`)
    await sleep(20)
  }
}

/** The master every spawned CLI is started with. */
export const TESTER = { user: 'tester', password: 'tester-pw' }

/** The environment of a CLI started by these tests: the {@link TESTER} master. */
const TESTER_ENV = { MOBISITE_USER: TESTER.user, MOBISITE_PASSWORD: TESTER.password }

/** Starts `mobisite ...args` (from source), on a free port, with the {@link TESTER} master and no shared store. */
export const runCli = (t: Test, args: string[]): Cli => run(t, args, TESTER_ENV)

/** Starts the CLI and resolves with its base URL once its banner says it serves; rejects if it exits first. */
export const serveCli = (t: Test, args: string[], ms = 60_000): Promise<Cli & { url: string }> =>
  serve(t, args, TESTER_ENV, ms)

/** Basic credentials of {@link TESTER}. */
export const testerAuth = `Basic ${Buffer.from(`${TESTER.user}:${TESTER.password}`).toString('base64')}`

/** Creates a site over HTTP as {@link TESTER}; resolves with the status. */
export async function createSite(url: string, site_name: string): Promise<number> {
  const res = await fetch(`${url}/api/sites/create`, {
    method: 'POST',
    headers: { authorization: testerAuth, 'content-type': 'application/json' },
    body: JSON.stringify({ site_data: { site_name, original_site_url: `https://${site_name}.example` } }),
  })
  await res.arrayBuffer()
  return res.status
}
