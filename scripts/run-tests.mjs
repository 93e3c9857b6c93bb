#!/usr/bin/env node
/**
 * `npm test`'s last step: tap, after saying which services this run has. A
 * suite whose service is missing skips (and says so); the store adapter it
 * would have exercised is then left out of the coverage figure, so the
 * thresholds in package.json judge the code that ran rather than fail a
 * machine without Redis or PostgreSQL. Arguments go to tap unchanged
 * (`npm test -- test/api/sites-crud.ts`).
 *
 * `MOBISITE_TEST_EXPRESS=4 npm test` runs the suite against Express 4 (the
 * dev dependency `express4`, linked in place of express for the run:
 * scripts/express-major.mjs). CI's Node 22 lane does this.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { restoreExpress5, useExpress4 } from './express-major.mjs'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const chromium = process.env.CHROMIUM_PATH
const hasChromium =
  chromium === 'none'
    ? false
    : Boolean(chromium) || ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].some(existsSync)

/** Each service: whether this run has it, and the adapter whose coverage needs it. */
const SERVICES = [
  { name: 'Redis', has: Boolean(process.env.REDIS_URL), how: 'REDIS_URL', adapter: 'lib/store/redis/**' },
  { name: 'Redis Cluster', has: Boolean(process.env.REDIS_CLUSTER_URL), how: 'REDIS_CLUSTER_URL' },
  { name: 'PostgreSQL', has: Boolean(process.env.DATABASE_URL), how: 'DATABASE_URL', adapter: 'lib/store/postgres/**' },
  {
    name: 'Chromium',
    has: hasChromium,
    how: chromium === 'none' ? 'CHROMIUM_PATH=none' : 'CHROMIUM_PATH or apt-get install chromium',
  },
]

const expressMajor = process.env.MOBISITE_TEST_EXPRESS
if (expressMajor !== undefined && expressMajor !== '4' && expressMajor !== '5') {
  process.stderr.write(`MOBISITE_TEST_EXPRESS is ${expressMajor}: 4 or 5\n`)
  process.exit(2)
}
restoreExpress5()
if (expressMajor === '4') {
  useExpress4()
  // Ctrl-C reaches tap too; this process waits for it to end, then puts Express 5 back.
  process.on('SIGINT', () => {})
}
const expressVersion = JSON.parse(
  readFileSync(new URL('../node_modules/express/package.json', import.meta.url), 'utf8'),
).version
process.stdout.write(`# npm test: Node ${process.version}, Express ${expressVersion}\n`)

const missing = SERVICES.filter((service) => !service.has)
for (const service of SERVICES) {
  const note = service.has
    ? 'its suites run'
    : `not there (${service.how}): its suites skip${service.adapter ? `, and ${service.adapter} is left out of coverage` : ''}`
  process.stdout.write(`# npm test: ${service.name}: ${note}\n`)
}

const excluded = [...pkg.tap['coverage-exclude'], ...missing.flatMap((service) => service.adapter ?? [])]
const args =
  missing.some((service) => service.adapter) && !process.argv.includes('--coverage-exclude')
    ? excluded.map((pattern) => `--coverage-exclude=${pattern}`)
    : []
const tap = spawnSync(
  new URL('../node_modules/.bin/tap', import.meta.url).pathname,
  [...args, ...process.argv.slice(2)],
  { stdio: 'inherit', shell: false },
)
restoreExpress5()
process.exit(tap.status ?? 1)
