/**
 * Child processes of the tests, above all the `mobisite` CLI started from
 * source (`node --import tsx lib/cli/index.ts`): one way to start one, keep
 * its output, wait for it to serve and see it end.
 *
 * `exited` resolves on the child's 'close', not its 'exit': 'exit' can come
 * before the last of stdout has been read, and a test that then read the
 * final log line failed now and then (CI, issue 35).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import type { Test } from 'tap'
import { TSX_CHILD_ENV } from './tsx-child.js'

/** The repository's root, the working folder of every child. */
export const root = new URL('../..', import.meta.url).pathname

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A free TCP port on 127.0.0.1 (free at the time of asking). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

/** A started child: its output so far and its end. */
export interface Child {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** stdout and stderr together, in the order they arrived. */
  output(): string
  /** Resolves with the exit code once the child has closed and all its output is read (null when killed by a signal). */
  exited: Promise<number | null>
  /** Whether the child has exited (by itself or by a signal). */
  ended(): boolean
}

/** Children still running; killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/**
 * Starts `command args` in the repository's root with its output piped and
 * kept. With `t`, the child is killed (SIGKILL) at the test's teardown if it
 * still runs; with `group`, it leads a process group of its own and the
 * teardown kills the whole group (whatever it started too).
 */
export function startChild(
  t: Test | undefined,
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; group?: boolean },
): Child {
  const child = spawn(command, args, {
    cwd: root,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group ?? false,
  })
  running.add(child)
  let out = ''
  let err = ''
  let both = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString()
    both += chunk.toString()
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString()
    both += chunk.toString()
  })
  const ended = () => child.exitCode !== null || child.signalCode !== null
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      running.delete(child)
      resolve(code)
    }),
  )
  t?.teardown(() => {
    if (options.group) {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // Already gone.
      }
    } else if (!ended()) child.kill('SIGKILL')
  })
  return { child, stdout: () => out, stderr: () => err, output: () => both, exited, ended }
}

/**
 * Polls `check` every 20 ms until it holds; throws, with the child's stderr,
 * if the child exits first or `ms` pass.
 */
export async function waitFor(
  cli: Child,
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 60_000,
): Promise<void> {
  for (let waited = 0; !(await check()); waited += 20) {
    if (cli.ended())
      throw new Error(`exited (${cli.child.exitCode ?? cli.child.signalCode}) before ${what}: ${cli.output()}`)
    if (waited > ms) throw new Error(`not ${what} after ${ms} ms: ${cli.output()}`)
    await sleep(20)
  }
}

/** Whether something at `url` answers /healthz with 2xx. */
export const healthy = (url: string): Promise<boolean> =>
  fetch(`${url}/healthz`).then(
    (res) => res.ok,
    () => false,
  )

/**
 * What every CLI child runs with: the test process's environment without any
 * of the CLI's own settings (no store, master, admin, log level or MOBISITE_*
 * of the caller's shell), on a free port of 127.0.0.1, recording no coverage
 * (see tsx-child.ts).
 */
export const CLI_ENV: NodeJS.ProcessEnv = {
  ...Object.fromEntries(
    Object.entries(TSX_CHILD_ENV).filter(
      ([name]) => !name.startsWith('MOBISITE_') && !['REDIS_URL', 'DATABASE_URL', 'LOG_LEVEL'].includes(name),
    ),
  ),
  PORT: '0',
  HOST: '127.0.0.1',
}

/** A CLI child. */
export type Cli = Child

/** Starts `mobisite ...args` from source with {@link CLI_ENV} and `env` on top; see {@link startChild}. */
export function runCli(t: Test | undefined, args: string[], env: Record<string, string> = {}): Cli {
  return startChild(t, process.execPath, ['--import', 'tsx', 'lib/cli/index.ts', ...args], {
    env: { ...CLI_ENV, ...env },
  })
}

/** The API address in the banner. */
const API_LINE = /mobisite API: (https?:\/\/\S+)\/api/

/** The complete lines (those ended by a newline) of `text`. */
export const lines = (text: string): string[] => text.split('\n').slice(0, -1)

/** Starts the CLI and resolves once a complete line of its banner (stderr) matches `line`; rejects if it exits first. */
export async function startCli(t: Test, args: string[], line: RegExp, env: Record<string, string> = {}): Promise<Cli> {
  const cli = runCli(t, args, env)
  await waitFor(cli, `printing ${line}`, () => lines(cli.stderr()).some((l) => line.test(l)))
  return cli
}

/**
 * Starts the CLI and resolves with its base URL once it serves: once the
 * banner on stderr is out to its last line (`logs:`), or, with `--quiet`
 * (no banner), once /healthz answers on the port chosen for it. Rejects if it
 * exits first.
 */
export async function serveCli(
  t: Test,
  args: string[],
  env: Record<string, string> = {},
  ms = 60_000,
): Promise<Cli & { url: string }> {
  if (args.includes('--quiet')) {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const cli = runCli(t, args, { ...env, PORT: String(port) })
    await waitFor(cli, 'serving', () => healthy(url), ms)
    return { ...cli, url }
  }
  const cli = runCli(t, args, env)
  await waitFor(cli, 'serving', () => API_LINE.test(cli.stderr()) && /^logs: /m.test(cli.stderr()), ms)
  return { ...cli, url: API_LINE.exec(cli.stderr())![1]! }
}

/** Sends `signal` (SIGTERM unless told) and resolves with the exit code once the child has closed. */
export function stop(cli: Child, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  cli.child.kill(signal)
  return cli.exited
}
