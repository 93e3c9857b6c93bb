/**
 * The reference in the repository: docs/api.md and docs/errors.md are what
 * `npm run docs` renders from the route table, the schemas and the error-code
 * registry today; no file cites a document the repository does not hold; and
 * every relative link of the Markdown files points at a file that exists.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { renderApiReference, renderErrorReference } from '../../scripts/reference.js'
import { ROUTES, SERVICE_ROUTES } from '../../lib/http/routes.js'
import { ERROR_CODES } from '../../lib/errors.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const read = (path: string): string => readFileSync(join(root, path), 'utf8')

t.test('docs/api.md and docs/errors.md are current (else: npm run docs)', async (t) => {
  t.equal(read('docs/api.md'), renderApiReference(), 'docs/api.md is stale: run npm run docs')
  t.equal(read('docs/errors.md'), renderErrorReference(), 'docs/errors.md is stale: run npm run docs')
})

t.test('the reference names every endpoint and every error code', async (t) => {
  const api = read('docs/api.md')
  for (const route of [...ROUTES, ...SERVICE_ROUTES]) {
    t.ok(
      api.includes(`\`${route.method} ${route.path.replace(/:([a-z_]+)/g, '{$1}')}\``),
      `${route.method} ${route.path}`,
    )
  }
  const errors = read('docs/errors.md')
  for (const [code, { status }] of Object.entries(ERROR_CODES))
    t.match(errors, new RegExp(`\`${code}\` \\| ${status}`), code)
  const readme = read('README.md')
  t.match(readme, /\(docs\/api\.md\)/, 'README links docs/api.md')
  t.match(readme, /\(docs\/errors\.md\)/, 'README links docs/errors.md')
})

/** The repository's own files (tracked, or new and not ignored). */
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((path) => path !== '' && path !== 'package-lock.json' && existsSync(join(root, path)))

t.test('no file cites a document that is not in the repository', async (t) => {
  // Built from parts so that this file does not cite them itself.
  const outside = new RegExp(`\\b(${['SP', 'EC'].join('')}|${['DES', 'IGN'].join('')})\\.md\\b`)
  const citing = files.filter((path) => /\.(ts|js|mjs|cjs|md|json)$/.test(path) && outside.test(read(path)))
  t.same(citing, [], 'no citations of documents outside the repository')
})

/** Files a command writes rather than the repository holding them: `npm run bench` writes the performance report. */
const WRITTEN_BY_COMMANDS = new Set(['docs/PERFORMANCE.md'])

t.test('relative links in Markdown files point at files that exist', async (t) => {
  for (const path of files.filter((p) => p.endsWith('.md'))) {
    for (const [, target] of read(path).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/i.test(target!) || WRITTEN_BY_COMMANDS.has(join(dirname(path), target!))) continue
      t.ok(existsSync(join(root, dirname(path), target!)), `${path} → ${target}`)
    }
  }
})
