/**
 * The rate of an async call under concurrency, as the store benchmarks
 * measure it: a fixed number of calls shared by workers that each start the
 * next call as soon as their last one settles, so exactly `concurrency` are
 * in flight until the calls run out (like a server's pool of callers).
 */

/** Runs `op(i)` for every i < n with `concurrency` calls in flight; returns calls per second of wall time. */
export async function callsPerSecond(
  n: number,
  op: (i: number) => Promise<unknown>,
  concurrency: number,
): Promise<number> {
  let next = 0
  const start = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await op(next++)
    }),
  )
  return n / (Number(process.hrtime.bigint() - start) / 1e9)
}
