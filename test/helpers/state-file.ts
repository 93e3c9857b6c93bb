/**
 * Shared pieces of the state-file tests: a temporary folder, the CLI spawned
 * with `--state` (the banner and the JSON log lines kept apart), polling.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { TSX_CHILD_ENV } from './tsx-child.js'

const root = new URL('../..', import.meta.url).pathname

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

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

/** A spawned CLI: its output so far and its exit. */
export interface Cli {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
}

/** Spawns `mobisite ...args` (from source), on a free port, with the {@link TESTER} master and no shared store. */
export function runCli(t: Test, args: string[]): Cli {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/index.ts', ...args], {
    cwd: root,
    env: {
      ...TSX_CHILD_ENV,
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: '',
      DATABASE_URL: '',
      MOBISITE_STORE: '',
      MOBISITE_USER: TESTER.user,
      MOBISITE_PASSWORD: TESTER.password,
      MOBISITE_DEMO: '',
      MOBISITE_ADMIN: '',
      LOG_LEVEL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let out = ''
  let err = ''
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
  // 'close', not 'exit': 'exit' can come before the last of stdout has been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
  return { child, stdout: () => out, stderr: () => err, exited }
}

/** Spawns the CLI and resolves with its base URL once its banner says it serves; rejects if it exits first. */
export async function serveCli(t: Test, args: string[], ms = 60_000): Promise<Cli & { url: string }> {
  const cli = runCli(t, args)
  for (let waited = 0; ; waited += 20) {
    const found = /mobisite API: (http:\/\/\S+)\/api/.exec(cli.stderr())
    if (found && /logs: /.test(cli.stderr())) return { ...cli, url: found[1]! }
    if (cli.child.exitCode !== null) throw new Error(`the CLI exited with ${cli.child.exitCode}: ${cli.stderr()}`)
    if (waited > ms) throw new Error(`the CLI is not serving after ${ms} ms: ${cli.stderr()}`)
    await sleep(20)
  }
}

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
