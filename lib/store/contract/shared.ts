/**
 * What every part of the Store contract shares: the outage error, and the
 * table type by which each part lists its operations (see {@link Operations}).
 */

/** Raised by a store whose backend cannot be reached; the API answers 503. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}

/**
 * Every method of a part, each marked `read` (it never changes what the
 * store holds) or `write`. Each part file keeps one such table beside its
 * interface, and the compiler holds the two to the same names, so adding an
 * operation to a part is one file: `ComposedStore` delegates every listed
 * method, and MemoryStore counts the writes.
 */
export type Operations<Part> = { readonly [K in keyof Part]: 'read' | 'write' }
