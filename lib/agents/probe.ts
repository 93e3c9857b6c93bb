/**
 * The "dangerously slow" check: a new source is timed on adversarial UAs
 * before it replaces a good one. Only linear-form sources get here (any
 * other is refused by structure first, or trusted and not probed), so every
 * probe finishes in time linear in its length: a huge source can still be
 * slow per UA, but none can run away, and no watchdog is needed. That keeps
 * this file free of `node:vm`, so the edge entry accepts and refuses the
 * same sources as Node.
 */
import type { CompiledAgents } from './compile.js'

const DESKTOP_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/153.0.0.0 Safari/537.36 '

/** Result of {@link probeSource}: the slowest probe. */
export type ProbeResult = { ok: boolean; worstMs: number }

/**
 * CPU time of this process where the runtime tells it (Node, Bun, Deno's
 * Node layer), so that on a busy machine waiting for a core does not get a
 * good source refused as slow; elsewhere the monotonic clock. Production
 * Cloudflare Workers stop that clock while code runs, so there the probe
 * measures nothing and only the structural checks refuse (docs/redirect.md).
 */
const clock: () => number = (() => {
  const cpuUsage = (globalThis as { process?: { cpuUsage?: () => { user: number; system: number } } }).process?.cpuUsage
  if (typeof cpuUsage === 'function') {
    return () => {
      const { user, system } = cpuUsage()
      return (user + system) / 1000
    }
  }
  return () => performance.now()
})()

/**
 * Times `compiled.test` on UAs of `length` code units built to make it work
 * hardest: repeated fragments of the source (each occurrence restarts a
 * search), near misses, a long desktop UA, one long line and many short ones.
 * A slow probe runs twice and keeps the faster time, so one GC pause cannot
 * get a good source refused.
 */
export function probeSource(compiled: CompiledAgents, length: number, slowMs: number): ProbeResult {
  let worstMs = 0
  for (const probe of probeInputs(compiled.fragments, length)) {
    let ms = timed(compiled, probe)
    if (ms > slowMs) ms = Math.min(ms, timed(compiled, probe))
    if (ms > worstMs) worstMs = ms
    // One slow probe settles it: the rest would only add to the stall.
    if (worstMs > slowMs) break
  }
  return { ok: worstMs <= slowMs, worstMs }
}

function timed(compiled: CompiledAgents, probe: string): number {
  const start = clock()
  compiled.test(probe)
  return clock() - start
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
