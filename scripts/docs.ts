/**
 * `npm run docs`: writes docs/api.md and docs/errors.md from the route table,
 * the schemas and the error-code registry, and the flag table of
 * docs/operations.md from the CLI's (lib/cli/flags.ts).
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { readFileSync } from 'node:fs'
import { flagsMarkdown } from '../lib/cli/flags.js'
import { renderApiReference, renderErrorReference } from './reference.js'

const docs = fileURLToPath(new URL('../docs/', import.meta.url))
writeFileSync(`${docs}api.md`, renderApiReference())
writeFileSync(`${docs}errors.md`, renderErrorReference())
// The CLI's flag table, between markers in the hand-written operations page.
const operations = readFileSync(`${docs}operations.md`, 'utf8')
const START = '<!-- flags:start (npm run docs) -->'
const END = '<!-- flags:end -->'
const from = operations.indexOf(START)
const to = operations.indexOf(END)
if (from < 0 || to < from) throw new Error(`docs/operations.md lacks the markers ${START} … ${END}`)
writeFileSync(
  `${docs}operations.md`,
  `${operations.slice(0, from)}${START}\n${flagsMarkdown()}\n${operations.slice(to)}`,
)
console.log('wrote docs/api.md, docs/errors.md and the flag table of docs/operations.md')
