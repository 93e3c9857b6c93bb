/**
 * The command line of `mobisite` as data: one row per flag (its type,
 * environment twin, default, help text and the option it sets). The
 * parser (node:util parseArgs, strict) and `--help` are both made from
 * this table, so adding a flag is adding a row (and reading its value in
 * lib/cli/index.ts). Flags beat their environment twins.
 */

/** One command-line flag. */
export interface Flag {
  /** Without the dashes: `port` is `--port`. */
  name: string
  /** One letter: `h` is `-h`. */
  short?: string
  /** `boolean` flags take no value; `negatable` ones also have `--no-NAME`. */
  type: 'string' | 'boolean'
  /** A string flag that may be given more than once. */
  multiple?: boolean
  /** A boolean flag that is on by default, turned off by `--no-NAME`. */
  negatable?: boolean
  /** The environment variable read when the flag is not given. */
  env?: string
  /** The default, as shown by --help. */
  default?: string
  /** The placeholder of the value in --help: `--port N`. */
  value?: string
  /** One line for --help. */
  help: string
  /** The startServer / engine option it sets, for docs/operations.md. */
  sets?: string
}

/** Every flag of `mobisite [serve]`, in --help order. */
export const FLAGS: readonly Flag[] = [
  {
    name: 'port',
    type: 'string',
    value: 'N',
    env: 'PORT',
    default: '3000',
    help: 'port to listen on (0: any free port)',
    sets: 'startServer port',
  },
  {
    name: 'host',
    type: 'string',
    value: 'HOST',
    env: 'HOST',
    default: '127.0.0.1',
    help: 'interface to listen on (0.0.0.0: every interface)',
    sets: 'startServer host',
  },
  {
    name: 'store',
    type: 'string',
    value: 'URL',
    env: 'MOBISITE_STORE',
    default: 'REDIS_URL, else DATABASE_URL, else memory',
    help: 'redis://, rediss://, redis-cluster://, postgres:// URL or "memory"',
    sets: 'createEngine store',
  },
  {
    name: 'admin',
    type: 'boolean',
    env: 'MOBISITE_ADMIN',
    default: 'off',
    help: 'mount the test-double controls at /__admin (bearer token: MOBISITE_ADMIN_TOKEN)',
    sets: 'startServer admin, adminToken',
  },
  {
    name: 'seed',
    type: 'string',
    value: 'FILE',
    help: 'with --admin: seed the state from this fixtures JSON before serving',
    sets: 'controls.seed',
  },
  {
    name: 'demo',
    type: 'boolean',
    env: 'MOBISITE_DEMO',
    default: 'off',
    help: 'add a sub-account with a granted site and 30 days of visits, and print its sign-in link',
  },
  {
    name: 'state',
    type: 'string',
    value: 'FILE',
    env: 'MOBISITE_STATE',
    help: "keep the memory store's state in this file between runs (one process per file)",
    sets: 'startServer stateFile',
  },
  {
    name: 'state-interval',
    type: 'string',
    value: 'S',
    env: 'MOBISITE_STATE_INTERVAL',
    default: '5',
    help: 'an acknowledged change is in the state file at most this many seconds later',
    sets: 'startServer stateInterval',
  },
  {
    name: 'rate-limit',
    type: 'string',
    value: 'N',
    env: 'MOBISITE_RATE_LIMIT',
    default: 'off',
    help: 'answer 429 past N calls per second per master account',
    sets: 'startServer rateLimit.perSecond',
  },
  {
    name: 'webhook',
    type: 'string',
    multiple: true,
    value: 'URL',
    help: 'send every site event to this URL (repeatable)',
    sets: 'startServer webhooks',
  },
  {
    name: 'webhooks-allow-link-local',
    type: 'boolean',
    env: 'MOBISITE_WEBHOOKS_ALLOW_LINK_LOCAL',
    default: 'off',
    help: 'let webhooks deliver to link-local and cloud-metadata addresses (169.254.0.0/16, fe80::/10)',
    sets: 'startServer allowLinkLocalWebhooks',
  },
  {
    name: 'tls',
    type: 'boolean',
    env: 'MOBISITE_TLS',
    default: 'off',
    help: 'serve HTTPS with a self-signed certificate made at start (its PEM is printed to stderr); needs the optional package selfsigned',
    sets: 'startServer tls: true',
  },
  {
    name: 'tls-cert',
    type: 'string',
    value: 'FILE',
    env: 'MOBISITE_TLS_CERT',
    help: 'serve HTTPS with this PEM certificate (chain); needs --tls-key',
    sets: 'startServer tls.cert',
  },
  {
    name: 'tls-key',
    type: 'string',
    value: 'FILE',
    env: 'MOBISITE_TLS_KEY',
    help: 'the PEM private key of --tls-cert',
    sets: 'startServer tls.key',
  },
  {
    name: 'public-url',
    type: 'string',
    value: 'URL',
    env: 'MOBISITE_PUBLIC_URL',
    default: "the server's own listening origin",
    help: 'the public origin that SSO, welcome and reset links point at (never a request Host)',
    sets: 'startServer publicUrl',
  },
  {
    name: 'trust-proxy',
    type: 'string',
    value: 'VALUE',
    env: 'MOBISITE_TRUST_PROXY',
    default: 'off',
    help: "Express's trust proxy: true, a hop count, or addresses/subnets (comma-separated) of your proxies",
    sets: 'startServer trustProxy',
  },
  {
    name: 'beacons-per-minute',
    type: 'string',
    value: 'N',
    env: 'MOBISITE_BEACONS_PER_MINUTE',
    default: '600',
    help: 'beacons /collect accepts per client IP and site each minute; the rest are dropped and counted (0: no limit)',
    sets: 'startServer collector.beaconsPerMinute',
  },
  {
    name: 'max-pending-recordings',
    type: 'string',
    value: 'N',
    env: 'MOBISITE_MAX_PENDING_RECORDINGS',
    default: '10000',
    help: 'beacons answered but not yet recorded; past it they are dropped and counted',
    sets: 'startServer collector.maxPendingRecordings',
  },
  {
    name: 'geo-headers',
    type: 'string',
    value: 'CDN',
    env: 'MOBISITE_GEO_HEADERS',
    default: 'none read',
    help: "read visitor country/region from this CDN's headers: cloudflare, cloudfront, vercel or appengine",
    sets: 'startServer collector.geo = cdnGeo({ provider })',
  },
  {
    name: 'analytics-retention-days',
    type: 'string',
    value: 'N',
    env: 'MOBISITE_ANALYTICS_RETENTION_DAYS',
    default: 'unlimited',
    help: 'delete analytics days older than N days (by the engine clock); 400 keeps a year of reports',
    sets: 'createEngine analyticsRetentionDays',
  },
  {
    name: 'max-dimension-values',
    type: 'string',
    value: 'N',
    env: 'MOBISITE_MAX_DIMENSION_VALUES',
    default: '1000',
    help: 'distinct browsers/OSes and countries/regions kept per site and day; later new ones count as "(other)"',
    sets: 'createEngine maxDimensionValues',
  },
  {
    name: 'exact-visitors',
    type: 'string',
    value: 'N',
    env: 'MOBISITE_EXACT_VISITORS',
    default: '10000',
    help: 'memory store: distinct visitors counted exactly per site and day; past it, estimated (HyperLogLog, ~0.8 %)',
    sets: 'new MemoryStore({ exactVisitors })',
  },
  {
    name: 'log-level',
    type: 'string',
    value: 'LEVEL',
    env: 'LOG_LEVEL',
    default: 'info',
    help: 'fatal, error, warn, info, debug, trace or silent (JSON lines on stdout)',
    sets: 'startServer logger',
  },
  {
    name: 'quiet',
    short: 'q',
    type: 'boolean',
    env: 'MOBISITE_QUIET',
    default: 'off',
    help: 'no start-up banner on stderr',
  },
  {
    name: 'metrics',
    type: 'boolean',
    negatable: true,
    env: 'MOBISITE_METRICS',
    default: 'on',
    help: 'serve Prometheus metrics at GET /metrics (--no-metrics: off)',
    sets: 'startServer metrics',
  },
  {
    name: 'shutdown-delay',
    type: 'string',
    value: 'S',
    env: 'MOBISITE_SHUTDOWN_DELAY',
    default: '0',
    help: 'on SIGTERM, seconds of 503 readiness before new connections are refused',
    sets: 'RunningServer.shutdown delay',
  },
  {
    name: 'shutdown-timeout',
    type: 'string',
    value: 'S',
    env: 'MOBISITE_SHUTDOWN_TIMEOUT',
    default: '10',
    help: 'on SIGTERM, most seconds to let in-flight work finish',
    sets: 'RunningServer.shutdown timeout',
  },
  { name: 'version', short: 'v', type: 'boolean', help: 'print the version and exit' },
  { name: 'help', short: 'h', type: 'boolean', help: 'print this help and exit' },
]

/** Variables with no flag (secrets stay off the command line, where `ps` shows them). */
export const ENVIRONMENT: ReadonlyArray<readonly [name: string, help: string]> = [
  ['MOBISITE_USER', "the partner master account's user (default admin)"],
  ['MOBISITE_PASSWORD', 'its password (default: generated and printed; a given one is never printed)'],
  ['MOBISITE_ADMIN_TOKEN', 'bearer token of /__admin; required with --admin on a non-loopback host'],
  ['MOBISITE_REDIS_PREFIX', 'key prefix on a Redis store (default mobisite:)'],
  ['MOBISITE_PG_SCHEMA', 'schema on a PostgreSQL store (default mobisite)'],
  ['REDIS_URL', 'the store when neither --store nor MOBISITE_STORE is given'],
  ['DATABASE_URL', 'the store when REDIS_URL is not set either'],
]

/** Examples shown first by --help. */
const EXAMPLES: ReadonlyArray<readonly [command: string, what: string]> = [
  ['mobisite', 'API on http://127.0.0.1:3000/api, memory store'],
  ['mobisite --demo', 'and a filled dashboard to sign in to'],
  ['mobisite --store redis://127.0.0.1:6379', 'state in Redis (several instances may share it)'],
  ['mobisite --admin --seed fixtures.json', 'a test double with its controls at /__admin'],
  ['MOBISITE_PASSWORD=s3cret mobisite --host 0.0.0.0 --port 8080 --log-level warn', ''],
]

/** The text of `--help`: usage, examples, every flag with its environment twin and default. */
export function helpText(): string {
  const lines = [
    'Usage: mobisite [serve] [options]',
    '',
    'Serves the mobisite API, its dashboard and collector.',
    '',
    'Examples:',
  ]
  for (const [command, what] of EXAMPLES) lines.push(`  ${command}${what ? `\n      ${what}` : ''}`)
  lines.push('', 'Options (a flag beats its environment variable):')
  for (const flag of FLAGS) {
    const names = `${flag.short ? `-${flag.short}, ` : '    '}--${flag.negatable ? `[no-]${flag.name}` : flag.name}${flag.value ? ` ${flag.value}` : ''}`
    const notes = [flag.env ? `env ${flag.env}` : '', flag.default ? `default ${flag.default}` : '']
      .filter(Boolean)
      .join('; ')
    lines.push(`  ${names.padEnd(30)} ${flag.help}${notes ? ` [${notes}]` : ''}`)
  }
  lines.push('', 'Environment only:')
  for (const [name, help] of ENVIRONMENT) lines.push(`  ${name.padEnd(30)} ${help}`)
  lines.push(
    '',
    'Endpoints: /api, /dashboard, /collect, /redirect.js, /healthz, /readyz, /metrics; docs/operations.md has more.',
  )
  return `${lines.join('\n')}\n`
}

/** The flags and variables as Markdown tables, for docs/operations.md (`npm run docs`). */
export function flagsMarkdown(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|')
  const rows = ['| Flag | Environment | Default | What | Sets |', '|---|---|---|---|---|']
  for (const f of FLAGS) {
    const name = `\`--${f.negatable ? '[no-]' : ''}${f.name}${f.value ? ` ${f.value}` : ''}\`${f.short ? ` (\`-${f.short}\`)` : ''}`
    rows.push(
      `| ${name} | ${f.env ? `\`${f.env}\`` : ''} | ${cell(f.default ?? '')} | ${cell(f.help)} | ${f.sets ?? ''} |`,
    )
  }
  rows.push('', '| Variable (no flag) | What |', '|---|---|')
  for (const [name, help] of ENVIRONMENT) rows.push(`| \`${name}\` | ${cell(help)} |`)
  return rows.join('\n')
}
