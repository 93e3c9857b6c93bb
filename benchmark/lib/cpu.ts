/**
 * A server's CPU per request, read the same way by the benchmarks that
 * price the CLI (cli-server.ts, observation-cost.ts): the server on one
 * CPU and the client on another, and the server's CPU time from Linux /proc.
 *
 * Why pinned: on the 2-core hosts here, with the client free to share the
 * server's core, the server's syscall time rose with the client's sleeps.
 * Unpinned, a CPU profile put 27.5 µs of main-thread time a request in the
 * socket write for the CLI's defaults and 20.5 for the silent CLI; pinned,
 * their system time differed by about 1.3 µs (issue 38). And identical
 * servers, unpinned, read 0.93-1.18 of each other between runs.
 */
import { type ChildProcess, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { autocannon, checked } from './autocannon.js'

/** Read before this process pins itself, which makes it see one. */
const CPUS = os.availableParallelism()

/** The CPU servers run on, and the one the client (this process) runs on. */
export const SERVER_CPU = 0
export const CLIENT_CPU = 1

/**
 * Pins every thread of `pid` to `cpu` (threads it starts later inherit it);
 * false where it cannot: one CPU, or no `taskset` (util-linux).
 */
export function pin(pid: number, cpu: number): boolean {
  if (CPUS < 2) return false
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** CPU microseconds the process has used so far (Linux; utime + stime in 10 ms ticks). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/** The median of `xs` (the mean of the middle two when their number is even). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** A server under load: its process, and where autocannon sends its requests. */
export interface LoadTarget {
  label: string
  child: ChildProcess
  /** The whole URL of the request every connection sends. */
  url: string
}

/**
 * One run of autocannon against `target`, `connections` wide for `seconds`:
 * the requests it answered, the seconds the run took and the CPU µs its
 * process spent. One request goes first, on its own: a CLI's credential
 * verdict expires between rounds (it lives 10 s) and its scrypt would
 * otherwise stall the round's first 0.1 s and count in its CPU.
 */
export async function loadRun(
  target: LoadTarget,
  headers: Record<string, string>,
  connections: number,
  seconds: number,
): Promise<{ requests: number; seconds: number; cpu: number }> {
  const first = await fetch(target.url, { headers })
  if (first.status !== 200) throw new Error(`${target.label}: answered ${first.status}`)
  await first.arrayBuffer()
  const pid = target.child.pid!
  const before = cpuMicros(pid)
  const result = checked(await autocannon({ url: target.url, connections, duration: seconds, headers }), target.label)
  return { requests: result.requests.total, seconds: result.duration, cpu: cpuMicros(pid) - before }
}
