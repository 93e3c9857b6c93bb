/**
 * Where a state file may live and who may write it, checked before anything
 * is read: a regular file (or a missing one) in a folder this process can
 * write to, held by one process at a time through a lock file beside it
 * (`<file>.lock`, holding the owner's pid, host and a token). Node has no
 * portable advisory lock, so a lock whose owner has died on this host is
 * taken over by the next process, and the owner checks before each
 * write-back that the lock is still its own.
 */
import { randomBytes } from 'node:crypto'
import { constants, type Stats } from 'node:fs'
import { access, link, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname } from 'node:path'
import { temporaryPath } from './state-file-writer.js'

/**
 * The state file cannot be used at all: not a regular file, in a folder this
 * process cannot write to, or held by another process. Raised at start,
 * before the file is read; the CLI exits 2 with its message.
 */
export class StateFileRefusedError extends Error {
  /** How callers tell it apart, as Node's errors carry a code. */
  readonly code = 'MOBISITE_STATE_FILE_REFUSED'
}

/** The tokens of the locks this process holds: a lock naming this pid with another token is a dead predecessor's. */
const held = new Set<string>()

/** What a non-regular file is, for a message. */
function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder'
  if (info.isFIFO()) return 'a FIFO'
  if (info.isSocket()) return 'a socket'
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device'
  return 'not a regular file'
}

/** Refuses anything but a regular file, and says what it is. */
export function refuseUnlessRegular(path: string, info: Stats): void {
  if (!info.isFile())
    throw new StateFileRefusedError(
      `state file ${path} is ${kindOf(info)}, not a regular file: give the path of a JSON file, or of one to create`,
    )
}

/**
 * Refuses, before anything is opened, a path whose folder is missing or not
 * writable, or that names something other than a regular file this process
 * can read and write. Nothing here blocks: a FIFO is only looked at.
 */
export async function checkPlace(path: string): Promise<void> {
  const folder = dirname(path)
  const folderInfo = await stat(folder).catch(() => undefined)
  if (!folderInfo?.isDirectory())
    throw new StateFileRefusedError(`state file ${path}: the folder ${folder} does not exist`)
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw new StateFileRefusedError(`state file ${path} cannot be looked at (${error.code ?? error.message})`)
  })
  if (info !== undefined) refuseUnlessRegular(path, info)
  const writable = async (target: string, mode: number) =>
    access(target, mode).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code ?? error.message,
    )
  const folderProblem = await writable(folder, constants.W_OK | constants.X_OK)
  if (folderProblem !== undefined)
    throw new StateFileRefusedError(
      `state file ${path}: this process cannot write in the folder ${folder} (${folderProblem}); give a file in a writable folder`,
    )
  const fileProblem = info === undefined ? undefined : await writable(path, constants.R_OK | constants.W_OK)
  if (fileProblem !== undefined)
    throw new StateFileRefusedError(`state file ${path} cannot be read and written by this process (${fileProblem})`)
}

/** What a lock file holds. */
interface Holder {
  pid: number
  host: string
  token: string
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.token === 'string')
      return value as Holder
  } catch {
    // Not a lock this code wrote: refused below like a live one, with how to clear it.
  }
  return undefined
}

/** Whether the holder may still be running: only a pid on this host can be checked. */
function mayBeAlive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true
  // This pid is this process: the lock is ours (another server in this process) or a dead predecessor's with the same pid.
  if (holder.pid === process.pid) return held.has(holder.token)
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The lock of one state file, held by this process; see the module comment. */
export class StateLock {
  private constructor(
    /** The lock file. */
    readonly path: string,
    private readonly statePath: string,
    private readonly token: string,
  ) {}

  /** Takes the lock of the state file at `statePath`, or refuses with who holds it. */
  static async acquire(statePath: string): Promise<StateLock> {
    const lock = new StateLock(`${statePath}.lock`, statePath, randomBytes(8).toString('hex'))
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await lock.claim()) {
        held.add(lock.token)
        return lock
      }
      const text = await readFile(lock.path, 'utf8').catch(() => undefined)
      // Gone between the two calls: its owner released it; try again.
      if (text === undefined) continue
      const holder = parseHolder(text)
      if (holder === undefined || mayBeAlive(holder)) throw lock.inUse(holder)
      await lock.takeOver(text)
    }
    throw new StateFileRefusedError(
      `state file ${statePath}: could not take its lock file ${lock.path} (other processes keep taking it)`,
    )
  }

  /**
   * Rejects unless the lock file still holds this lock, re-creating it when
   * it was removed: a lock taken by another process means that process
   * writes the file now, and this one must not.
   */
  async verify(): Promise<void> {
    const text = await readFile(this.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (text === undefined && (await this.claim())) return
    const holder = parseHolder(text ?? (await readFile(this.path, 'utf8').catch(() => '')))
    if (holder?.token === this.token) return
    throw new Error(
      `the lock file ${this.path} is no longer this process's (${holder ? `process ${holder.pid} holds it` : 'it was replaced'}): not writing the state file, which another process may be writing`,
    )
  }

  /** Removes the lock file if it is still this lock's. */
  async release(): Promise<void> {
    held.delete(this.token)
    const text = await readFile(this.path, 'utf8').catch(() => undefined)
    if (text !== undefined && parseHolder(text)?.token === this.token) await unlink(this.path).catch(() => undefined)
  }

  /**
   * Creates the lock file, complete, in one step (a hard link to a written
   * temporary file): false when one exists. Refuses when the folder cannot
   * be written to.
   */
  private async claim(): Promise<boolean> {
    const holder: Holder = { pid: process.pid, host: hostname(), token: this.token }
    const temporary = temporaryPath(this.statePath)
    const refused = (error: NodeJS.ErrnoException) =>
      new StateFileRefusedError(
        `state file ${this.statePath}: cannot create its lock file ${this.path} (${error.code ?? error.message}); give a file in a writable folder`,
      )
    try {
      await writeFile(temporary, `${JSON.stringify(holder)}\n`, { flag: 'wx', mode: 0o600 }).catch((error) => {
        throw refused(error)
      })
      await link(temporary, this.path)
      return true
    } catch (error) {
      if (error instanceof StateFileRefusedError) throw error
      // EEXIST: held. ENOENT: the owner's start removed this temporary file as stale; it holds the lock.
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST' || code === 'ENOENT') return false
      throw refused(error as NodeJS.ErrnoException)
    } finally {
      await unlink(temporary).catch(() => undefined)
    }
  }

  /**
   * Moves a dead owner's lock aside. Two successors may race here: one that
   * finds it moved someone else's fresh lock instead puts that one back.
   */
  private async takeOver(staleText: string): Promise<void> {
    const aside = temporaryPath(this.statePath)
    try {
      await rename(this.path, aside)
    } catch {
      return
    }
    if ((await readFile(aside, 'utf8').catch(() => '')) !== staleText)
      await link(aside, this.path).catch(() => undefined)
    await unlink(aside).catch(() => undefined)
  }

  private inUse(holder: Holder | undefined): StateFileRefusedError {
    if (holder === undefined)
      return new StateFileRefusedError(
        `state file ${this.statePath} has a lock file that mobisite did not write (${this.path}): remove it if no process uses the state file`,
      )
    const who =
      holder.pid === process.pid && holder.host === hostname()
        ? 'another server in this process'
        : `process ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}`
    return new StateFileRefusedError(
      `state file ${this.statePath} is in use by ${who} (lock file ${this.path}): stop it or give this server another file; remove the lock file only if no process uses it`,
    )
  }
}
