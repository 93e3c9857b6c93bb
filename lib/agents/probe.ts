/**
 * The "dangerously slow" check: a new source is timed on adversarial UAs
 * before it replaces a good one. A linear-form source cannot blow up, but a
 * huge one can still be slow per UA; a general-mode regex can backtrack
 * catastrophically, which only a timeout can stop, so the probes run under
 * `vm`'s watchdog (it interrupts a running regex).
 */
import vm from 'node:vm'
import type { CompiledAgents } from './compile.js'

const DESKTOP_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/153.0.0.0 Safari/537.36 '

/** Result of {@link probeSource}: the slowest probe, or a timeout. */
export type ProbeResult = { ok: true; worstMs: number } | { ok: false; worstMs: number; timedOut: boolean }

/**
 * Times `compiled.test` on UAs of `length` code units built to make it work
 * hardest: repeated fragments of the source (each occurrence restarts a
 * search), near misses, a long desktop UA, one long line and many short ones.
 */
export function probeSource(compiled: CompiledAgents, length: number, slowMs: number): ProbeResult {
  const probes = probeInputs(compiled.fragments, length)
  // CPU time of this process, not wall time: on a busy machine (CI, a shared
  // host) waiting for a core must not get a good source refused as slow.
  const now = (): number => {
    const { user, system } = process.cpuUsage()
    return (user + system) / 1000
  }
  const context = vm.createContext({ probes, test: compiled.test, now, slowMs, worst: 0 })
  const timeout = Math.max(100, Math.ceil(2 * slowMs * probes.length))
  try {
    vm.runInContext(
      // A slow probe runs twice and keeps the faster time, so one GC pause
      // cannot get a good source refused.
      'for (const p of probes) { let t = now(); test(p); let ms = now() - t;' +
        ' if (ms > slowMs) { t = now(); test(p); ms = Math.min(ms, now() - t) } if (ms > worst) worst = ms }',
      context,
      { timeout },
    )
  } catch {
    return { ok: false, worstMs: timeout, timedOut: true }
  }
  const worstMs = context.worst as number
  return worstMs > slowMs ? { ok: false, worstMs, timedOut: false } : { ok: true, worstMs }
}

function fill(unit: string, length: number): string {
  if (unit.length === 0) return ''
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length)
}

function probeInputs(fragments: readonly string[], length: number): string[] {
  const out = [fill(DESKTOP_UA, length), fill('a', length), fill(' ', length), fill('a\n', length)]
  const picked = fragments.filter((f) => f.length > 0).slice(0, 24)
  for (const f of picked) {
    out.push(fill(f, length), fill(f, length - 1) + '!')
    if (f.length > 1) out.push(fill(f.slice(0, -1), length))
    out.push(fill(f + '\n', length))
  }
  if (picked.length > 1) out.push(fill(picked.join(' '), length), fill([...picked].reverse().join(''), length))
  return out
}
