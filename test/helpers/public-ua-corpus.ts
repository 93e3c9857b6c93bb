/**
 * A corpus of real User-Agents from public lists that DEFAULT_AGENTS was not
 * built or tuned against (the `user-agents` corpus is: agents-corpus.ts), for
 * the matcher's benchmark and equivalence tests. Bots included:
 * - `crawler-user-agents` (MIT): every `instances` entry, real crawler,
 *   library and monitoring UAs;
 * - `random-useragent` (MIT): its browser list, desktop, phone, tablet,
 *   console and TV UAs over two decades;
 * - `top-user-agents` (MIT): the most common browser UAs of today, desktop
 *   and mobile.
 * Deduplicated, in that order: {@link publicUserAgents} has about 2,900.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const require = createRequire(import.meta.url)

/** A package's file by path, past an `exports` map that may hide it (and its package.json). */
function packageFile(name: string, path: string): string {
  const root = (require.resolve.paths(name) ?? [])
    .map((dir) => join(dir, name))
    .find((dir) => existsSync(join(dir, 'package.json')))
  if (root === undefined) throw new Error(`${name} is not installed`)
  return join(root, path)
}

function readJson<T>(name: string, path: string): T {
  return JSON.parse(readFileSync(packageFile(name, path), 'utf8')) as T
}

function version(name: string): string {
  return readJson<{ version: string }>(name, 'package.json').version
}

/** Where each UA came from, with the package version. */
export const publicCorpusSources: string[] = ['crawler-user-agents', 'random-useragent', 'top-user-agents'].map(
  (name) => `${name}@${version(name)}`,
)

/** Bot UAs: every `instances` entry of crawler-user-agents. */
export const publicBotUserAgents: string[] = [
  ...new Set(
    readJson<Array<{ instances?: string[] }>>('crawler-user-agents', 'crawler-user-agents.json').flatMap(
      (entry) => entry.instances ?? [],
    ),
  ),
]

/** Browser UAs: random-useragent's list, then top-user-agents' three lists. */
export const publicBrowserUserAgents: string[] = [
  ...new Set([
    ...readJson<Array<{ userAgent: string }>>('random-useragent', 'useragent-data.json').map((r) => r.userAgent),
    ...['index', 'desktop', 'mobile'].flatMap((list) => readJson<string[]>('top-user-agents', `src/${list}.json`)),
  ]),
]

/** Every distinct UA of the corpus (bots first): about 2,900, of which about 2,100 bots. */
export const publicUserAgents: string[] = [...new Set([...publicBotUserAgents, ...publicBrowserUserAgents])].filter(
  (ua) => ua.length > 0,
)
