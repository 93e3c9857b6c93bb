/**
 * Grouping for PostgresStore: group commit of site creation, and reads of one
 * turn of the event loop sent together ({@link TurnGroup}).
 *
 * Group commit for site creation. Every commit waits for the
 * WAL to reach the disk, and that flush, not the statement, bounds how many
 * sites a second a store can create. Creates that arrive while earlier ones
 * are in flight wait here and go together as ONE multi-row INSERT: one round
 * trip and one flush for the whole group. Each row is still decided alone by
 * the unique indexes, and each caller is answered only after the commit.
 */
import { StoreUnavailableError } from '../contract/index.js'
import { foldName } from '../shared/name-fold.js'

/** The failure of one item of a group, which fails only that item's caller. */
export class ItemError {
  constructor(readonly error: unknown) {}
}

interface Pending<I, O> {
  item: I
  resolve: (value: O) => void
  reject: (err: unknown) => void
}

/**
 * Runs queued items in groups: at most `maxRunning` groups in flight, each of
 * at most `maxBatch` items; a lone item goes at once.
 */
export class Batcher<I, O> {
  private queue: Pending<I, O>[] = []
  private running = 0

  constructor(
    private readonly run: (items: I[]) => Promise<(O | ItemError)[]>,
    private readonly maxBatch = 200,
    private readonly maxRunning = 3,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      this.pump()
    })
  }

  private pump(): void {
    while (this.running < this.maxRunning && this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxBatch)
      this.running++
      this.run(group.map((p) => p.item))
        .then(
          (outs) =>
            group.forEach((p, i) => {
              const out = outs[i]
              if (out instanceof ItemError) p.reject(out.error)
              else p.resolve(out as O)
            }),
          (err: unknown) => group.forEach((p) => p.reject(err)),
        )
        .finally(() => {
          this.running--
          this.pump()
        })
    }
  }
}

/**
 * Sends the reads issued in one turn of the event loop together, as one
 * statement at the end of the turn (setImmediate). A read never joins a
 * statement already sent, so it sees every write committed before it was
 * issued, and it waits for nothing but the rest of its own turn. Concurrent
 * requests' reads then cost one round trip, one statement and one wake-up of
 * a backend instead of one each.
 */
export class TurnGroup<I, O> {
  private pending: Pending<I, O>[] = []

  /** `run` answers the items in their order. */
  constructor(private readonly run: (items: I[]) => Promise<O[]>) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(this.flush)
      this.pending.push({ item, resolve, reject })
    })
  }

  private readonly flush = (): void => {
    const group = this.pending
    this.pending = []
    let outs: Promise<O[]>
    try {
      outs = this.run(group.map((p) => p.item))
    } catch (err) {
      outs = Promise.reject(err)
    }
    outs.then(
      (values) => group.forEach((p, i) => p.resolve(values[i] as O)),
      (err: unknown) => group.forEach((p) => p.reject(err)),
    )
  }
}

/**
 * Runs a group of inserts keyed by name: names equal under foldName go in
 * separate statements (one statement could not tell which of them won), and
 * a statement that fails for a reason other than an outage (one bad row) is
 * retried row by row, so one row never fails the others.
 */
export async function insertGroup<T>(
  items: T[],
  nameOf: (item: T) => string,
  insert: (items: T[]) => Promise<Set<string>>,
): Promise<(boolean | ItemError)[]> {
  const out: (boolean | ItemError)[] = new Array(items.length).fill(false)
  let rest = items.map((item, i) => ({ item, i }))
  while (rest.length > 0) {
    const seen = new Set<string>()
    const now: typeof rest = []
    const later: typeof rest = []
    for (const entry of rest) {
      const key = foldName(nameOf(entry.item))
      if (seen.has(key)) later.push(entry)
      else {
        seen.add(key)
        now.push(entry)
      }
    }
    let inserted: Set<string>
    try {
      inserted = await insert(now.map((e) => e.item))
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err
      if (now.length === 1) out[now[0]!.i] = new ItemError(err)
      else for (const e of now) out[e.i] = (await insertGroup([e.item], nameOf, insert))[0]!
      rest = later
      continue
    }
    for (const e of now) out[e.i] = inserted.has(nameOf(e.item))
    rest = later
  }
  return out
}
