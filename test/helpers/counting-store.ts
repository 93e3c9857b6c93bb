import { type RecordOptions, type RecordedEvent, StoreUnavailableError } from '../../lib/store/contract/index.js'
import { MemoryStore } from '../../lib/store/memory/store.js'

/** A MemoryStore that remembers each recordEvents call and can be made to fail or to wait. */
export class CountingStore extends MemoryStore {
  readonly batches: RecordedEvent[][] = []
  failing = false
  /** While set, each batch waits for it: a slow store. */
  gate: Promise<void> | undefined
  override async recordEvents(events: readonly RecordedEvent[], options: RecordOptions) {
    this.batches.push([...events])
    await this.gate
    if (this.failing) throw new StoreUnavailableError('down for the test')
    return super.recordEvents(events, options)
  }
}
