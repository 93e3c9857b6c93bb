#!/usr/bin/env node
/**
 * `npm test`'s last step: tap, after saying which services this run has. A
 * suite whose service is missing skips (and says so); the store adapter it
 * would have exercised is then left out of the coverage figure, so the
 * thresholds in package.json judge the code that ran rather than fail a
 * machine without Redis or PostgreSQL. Arguments go to tap unchanged
 * (`npm test -- test/api/sites-crud.ts`).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

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
process.exit(tap.status ?? 1)
