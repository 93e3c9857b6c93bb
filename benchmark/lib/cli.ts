/**
 * The CLI as the benchmarks start it (cli-server.ts, cli-instructions.ts,
 * observation-cost.ts): its credentials, its environment and the site it serves.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { openSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { freePort, killOnExit } from './spawn-server.js'

/** The built CLI's entry. */
export const CLI = fileURLToPath(new URL('../../dist/esm/lib/cli/index.js', import.meta.url))
/** The CLI's flags with neither access log nor metrics. */
export const SILENT = ['--log-level', 'silent', '--no-metrics']
const USER = 'bench'
const PASSWORD = 'bench-password'
/** The master account's HTTP Basic header. */
export const HEADERS = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` }
/** The path of the site every CLI serves, made by {@link createBenchSite}. */
export const SITE_PATH = '/api/sites/benchsite'

/**
 * The environment for a CLI: its default log level whatever the caller's shell says, and the
 * memory store even where REDIS_URL or DATABASE_URL is set (npm run bench sets them).
 */
export function cliEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { LOG_LEVEL: _, REDIS_URL: _r, DATABASE_URL: _d, ...rest } = env
  return { ...rest, MOBISITE_STORE: 'memory', MOBISITE_USER: USER, MOBISITE_PASSWORD: PASSWORD }
}

/** Creates the benchmark's site once the CLI at `origin` answers, retrying every `retryMs` up to `tries` times. */
export async function createBenchSite(
  origin: string,
  child: ChildProcess,
  label: string,
  { tries = 300, retryMs = 20 } = {},
): Promise<void> {
  for (let tried = 0; ; tried++) {
    try {
      const answer = await fetch(`${origin}/api/sites/create`, {
        method: 'POST',
        headers: { ...HEADERS, 'content-type': 'application/json' },
        body: JSON.stringify({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } }),
      })
      if (answer.status !== 200) throw new Error(`${label}: create answered ${answer.status}`)
      return
    } catch (error) {
      if (tried > tries || child.exitCode !== null) throw error
      await new Promise((resolve) => setTimeout(resolve, retryMs))
    }
  }
}

/** Starts the built CLI with `flags`, stdout to /dev/null, and creates the site it will serve. */
export async function startCli(label: string, flags: string[]): Promise<{ child: ChildProcess; origin: string }> {
  const port = await freePort()
  const child = spawn(process.execPath, [CLI, '--port', String(port), ...flags], {
    env: cliEnvironment(process.env),
    stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit'],
  })
  killOnExit(child)
  const origin = `http://127.0.0.1:${port}`
  await createBenchSite(origin, child, label)
  return { child, origin }
}
