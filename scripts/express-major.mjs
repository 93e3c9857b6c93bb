/**
 * `MOBISITE_TEST_EXPRESS=4 npm test` (CI's Node 22 lane): the suite against
 * Express 4, installed as the dev dependency `express4`. For the length of
 * the run node_modules/express is a link to it and Express 5 waits in
 * node_modules/.express5, so every resolver finds express@4: the library's
 * imports and the tests', tap's TypeScript loader (which resolves packages
 * itself, past any resolve hook) and every child process. Put back when the
 * run ends, and at the start of the next run if one was killed.
 */
import { existsSync, lstatSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const modules = fileURLToPath(new URL('../node_modules/', import.meta.url))
const current = `${modules}express`
const parked = `${modules}.express5`

/** Puts Express 5 back where npm installed it, if a run left it parked. */
export function restoreExpress5() {
  if (!existsSync(parked)) return
  if (lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(current)
  renameSync(parked, current)
}

/** Links node_modules/express to express4 until `restoreExpress5()`. */
export function useExpress4() {
  restoreExpress5()
  renameSync(current, parked)
  symlinkSync('express4', current, 'dir')
}
