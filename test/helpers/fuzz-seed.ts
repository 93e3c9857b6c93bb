/**
 * One seed for every property test of a file: `FUZZ_SEED` when set, else a
 * random one, so CI's runs stay random and any failure can be replayed.
 * Importing this module sets fast-check's global seed; {@link replayable}
 * prints the seed at the start of a file and {@link checkProperty} adds the
 * replay command to a failure's message.
 */
import { randomInt } from 'node:crypto'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import type { Test } from 'tap'

/** The seed fast-check uses in this process: `FUZZ_SEED` (an integer) when set, else random. */
export const FUZZ_SEED: number = seedFromEnv(process.env.FUZZ_SEED)

function seedFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return randomInt(-(2 ** 31), 2 ** 31)
  const seed = Number(value)
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(seed) || Math.abs(seed) >= 2 ** 31)
    throw new Error(`FUZZ_SEED must be a 32-bit integer like -688154522 (got ${JSON.stringify(value)})`)
  return seed
}

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: FUZZ_SEED })

/** The command that replays the file at `fileUrl` with this process's seed. */
export function replayCommand(fileUrl: string): string {
  return `FUZZ_SEED=${FUZZ_SEED} npx tap ${relative(process.cwd(), fileURLToPath(fileUrl))}`
}

/** Says which seed the file runs with and how to replay it; call once per file. */
export function replayable(t: Test, fileUrl: string): void {
  t.comment(
    `fuzz seed ${FUZZ_SEED}${process.env.FUZZ_SEED ? ' (from FUZZ_SEED)' : ''}; replay: ${replayCommand(fileUrl)}`,
  )
}

/**
 * `fc.assert` whose failure also says how to replay it. Awaits async
 * properties; a sync property's failure is thrown as it happens.
 */
export function checkProperty<T>(fileUrl: string, property: fc.IProperty<T>, params?: fc.Parameters<T>): void
export function checkProperty<T>(
  fileUrl: string,
  property: fc.IAsyncProperty<T>,
  params?: fc.Parameters<T>,
): Promise<void>
export function checkProperty<T>(
  fileUrl: string,
  property: fc.IProperty<T> | fc.IAsyncProperty<T>,
  params?: fc.Parameters<T>,
): void | Promise<void> {
  const withReplay = (error: unknown): never => {
    if (error instanceof Error) error.message += `\nReplay this run: ${replayCommand(fileUrl)}`
    throw error
  }
  try {
    const run = fc.assert(property as fc.IAsyncProperty<T>, params) as void | Promise<void>
    return run instanceof Promise ? run.catch(withReplay) : run
  } catch (error) {
    return withReplay(error)
  }
}
