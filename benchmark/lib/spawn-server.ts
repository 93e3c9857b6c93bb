/**
 * The parent's side of a benchmark server child process: the server under
 * load runs in a process of its own, so autocannon (in the parent) does not
 * share its event loop, and its CPU time can be read on its own. The child's
 * side, for the plain-JS servers, is child-server.mjs.
 */
import { type ChildProcess, fork } from 'node:child_process'
import net, { type AddressInfo } from 'node:net'

/**
 * Forks `script` with `args` and resolves with the child and the first
 * message it sends (the port or ports it listens on); rejects with
 * "`label` server exited with <code>" if it exits before sending one.
 *
 * `execArgv` is `[]` unless given: the child does not inherit the parent's
 * `--import tsx`, so no TypeScript loader runs, and spends CPU, in the
 * measured process. A server that loads lib/ itself passes
 * `['--import', 'tsx']`, whose loader works while modules load, not after.
 */
export async function forkServer<T>(
  script: string,
  args: string[],
  label: string,
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(script, args, { execArgv })
  const ready = await new Promise<T>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T))
    child.once('exit', (code) => reject(new Error(`${label} server exited with ${code}`)))
  })
  return { child, ready }
}

/**
 * `forkServer` for a child that sends `{ port }` (a number, or a string as
 * `new URL(...).port` gives it) once it listens on 127.0.0.1; resolves with
 * its origin, `http://127.0.0.1:<port>`.
 */
export async function spawnServer(
  script: string,
  args: string[],
  label: string,
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; origin: string }> {
  const { child, ready } = await forkServer<{ port: number | string }>(script, args, label, execArgv)
  return { child, origin: `http://127.0.0.1:${Number(ready.port)}` }
}

/** What a server child answers to 'stats': its CPU time (user + system, µs) and the requests it has served. */
export interface ServerStats {
  cpuMicros: number
  requests: number
}

/**
 * Asks a server child for its CPU time and request count. Read around each
 * run, the difference gives CPU per request: steadier than req/s on a shared
 * machine, where req/s also counts the time the server waited for a core.
 */
export function serverStats(child: ChildProcess): Promise<ServerStats> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as ServerStats))
    child.send('stats')
  })
}

/** A TCP port free on 127.0.0.1 when asked (for a server that takes its port as an argument). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Children given to killOnExit that are still running. */
const orphans = new Set<ChildProcess>()

/** Stops `child` when this process exits, however it exits: a spawned server has no IPC channel to notice. */
export function killOnExit(child: ChildProcess): void {
  // One exit listener for all of them: cli-server.ts starts a dozen, past Node's leak warning at 11.
  if (orphans.size === 0) process.removeListener('exit', killOrphans).once('exit', killOrphans)
  orphans.add(child)
  child.once('exit', () => orphans.delete(child))
}

function killOrphans(): void {
  for (const orphan of orphans) orphan.kill('SIGKILL')
}
