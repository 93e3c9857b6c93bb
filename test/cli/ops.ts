/**
 * `mobisite` as a platform engineer runs it, by spawning the CLI: --help and
 * --version, exit code 2 for command-line mistakes, start-up failures that
 * say what to do, JSON log lines on stdout without secrets, the banner on
 * stderr, metrics labels, health probes, and the drain on SIGTERM.
 */
import { request as httpsRequest } from 'node:https'
import { createServer } from 'node:net'
import { checkServerIdentity, type PeerCertificate } from 'node:tls'
import t, { type Test } from 'tap'
import { freePort, root, runCli, serveCli as serve, waitFor } from '../helpers/cli.js'
import { OwnRedis, ownRedisOrSkip } from '../helpers/redis.js'
import { basic } from '../helpers/testing.js'

/** The JSON lines of stdout, each parsed (a line that is not JSON fails the test). */
function logLines(t: Test, stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>
      } catch {
        t.fail(`stdout line is not JSON: ${line}`)
        return {}
      }
    })
}

t.test('--help: examples first, then every flag with its environment twin and default; exit 0', async (t) => {
  const cli = runCli(t, ['--help'])
  t.equal(await cli.exited, 0)
  const help = cli.stdout()
  t.ok(help.indexOf('Examples:') < help.indexOf('Options'), 'examples come first')
  for (const [flag, twin, dflt] of [
    ['--port N', 'env PORT', 'default 3000'],
    ['--host HOST', 'env HOST', 'default 127.0.0.1'],
    ['--store URL', 'env MOBISITE_STORE', 'default REDIS_URL'],
    ['--log-level LEVEL', 'env LOG_LEVEL', 'default info'],
    ['--[no-]metrics', 'env MOBISITE_METRICS', 'default on'],
    ['--shutdown-delay S', 'env MOBISITE_SHUTDOWN_DELAY', 'default 0'],
    ['--shutdown-timeout S', 'env MOBISITE_SHUTDOWN_TIMEOUT', 'default 10'],
  ]) {
    const line = help.split('\n').find((l) => l.includes(` ${flag} `)) ?? ''
    t.match(line, twin, `${flag}: ${twin}`)
    t.match(line, dflt, `${flag}: ${dflt}`)
  }
  for (const name of ['--admin', '--seed', '--demo', '--quiet', '--state', '--rate-limit', '--version', '-h, --help'])
    t.match(help, name)
  for (const name of ['MOBISITE_REDIS_PREFIX', 'MOBISITE_PG_SCHEMA', 'MOBISITE_ADMIN_TOKEN', 'MOBISITE_PASSWORD'])
    t.match(help, name, `documents ${name}`)
  const short = runCli(t, ['-h'])
  t.equal(await short.exited, 0)
  t.equal(short.stdout(), help, '-h is --help')
})

t.test('--version prints the package version and exits 0', async (t) => {
  const cli = runCli(t, ['--version'])
  t.equal(await cli.exited, 0)
  const { version } = JSON.parse((await import('node:fs')).readFileSync(`${root}package.json`, 'utf8'))
  t.equal(cli.stdout(), `${version}\n`)
})

t.test('command-line mistakes: exit 2, one line saying why, and a pointer to --help', async (t) => {
  for (const [args, reason] of [
    [['--admn'], 'unknown option --admn; did you mean --admin?'],
    [['--prot', '4000'], 'unknown option --prot; did you mean --port?'],
    [['--no-metric'], 'unknown option --no-metric; did you mean --no-metrics?'],
    [['--frobnicate'], /^mobisite: unknown option --frobnicate$/],
    [['--admin', '--seed', 'no-such-fixtures.json'], '--seed no-such-fixtures.json: no such file'],
    [
      ['--admin', '--seed', 'package-lock.json'],
      /--seed package-lock.json: seed refused, nothing applied \(\d+ problems?\): /,
    ],
    [['--admin', '--seed', 'README.md'], '--seed README.md: not JSON'],
    [['--webhook', 'ftp://hooks.example/'], /^mobisite: --webhook ftp:\/\/hooks\.example\/: url must be/],
    [
      ['--webhook', 'http://u:pw@169.254.169.254/'],
      /--webhook http:\/\/\*\*\*:\*\*\*@169\.254\.169\.254\/: .*link-local/,
    ],
    [['--store'], '--store needs a value'],
    [['--port'], '--port needs a value'],
    [['--port', 'http'], '--port must be a port number'],
    [['--log-level', 'loud'], '--log-level must be one of'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['--store', 'mysql://x'], 'unknown store "mysql://x"'],
    [['--seed', 'x.json'], '--seed needs --admin'],
    [['--tls-cert', 'cert.pem'], '--tls-cert and --tls-key go together'],
    [['--public-url', 'ftp://sites.example.com'], '--public-url must be an origin'],
    [['--geo-headers', 'akamai'], '--geo-headers must be one of cloudflare'],
    [['--beacons-per-minute', '1.5'], '--beacons-per-minute must be a whole number from 0'],
    [['--analytics-retention-days', '0'], '--analytics-retention-days must be a whole number from 1'],
    [['--exact-visitors', 'many'], '--exact-visitors must be a whole number from 0'],
  ] as const) {
    const cli = runCli(t, [...args])
    t.equal(await cli.exited, 2, `${args.join(' ')}: exit 2`)
    const lines = cli.stderr().trim().split('\n')
    t.match(lines[0], reason, `${args.join(' ')}: ${reason}`)
    t.equal(lines[1], 'Run mobisite --help for the options.')
    t.equal(cli.stdout(), '', 'nothing on stdout')
  }
})

t.test('the port in use: says so and names --port', async (t) => {
  const port = await freePort()
  const blocker = createServer().listen(port, '127.0.0.1')
  t.teardown(() => blocker.close())
  const cli = runCli(t, ['--port', String(port)])
  t.equal(await cli.exited, 1)
  t.match(cli.stderr(), `port ${port} is in use on 127.0.0.1; pass --port`)
})

t.test('admin on a public host: names MOBISITE_ADMIN_TOKEN', async (t) => {
  const cli = runCli(t, ['--admin', '--host', '0.0.0.0'])
  t.equal(await cli.exited, 1)
  t.match(cli.stderr(), /--admin on host 0\.0\.0\.0, which is not loopback, needs a token: set MOBISITE_ADMIN_TOKEN/)
  t.notMatch(cli.stderr(), /adminToken/, 'not the startServer option name')
})

t.test(
  'a store that cannot be reached: non-zero exit within 15 s, URL with password hidden, and the cause',
  async (t) => {
    const port = await freePort()
    const started = Date.now()
    const cli = runCli(t, ['--store', `redis://:hunter2@127.0.0.1:${port}`])
    const code = await cli.exited
    t.ok(code !== 0 && code !== null, `exit ${code}`)
    t.ok(Date.now() - started < 15_000, `within 15 s (${Date.now() - started} ms)`)
    t.match(cli.stderr(), `cannot reach the store at redis://:***@127.0.0.1:${port}`)
    t.match(cli.stderr(), /not reachable|ECONNREFUSED|did not answer/, 'the cause')
    t.notMatch(cli.stderr() + cli.stdout(), /hunter2/, 'never the password')
  },
)

t.test('flags beat the environment', async (t) => {
  const cli = await serve(t, ['--quiet', '--log-level', 'warn'], { LOG_LEVEL: 'debug', MOBISITE_QUIET: '0' })
  t.equal(cli.stderr(), '', '--quiet beats MOBISITE_QUIET=0: no banner')
  await fetch(`${cli.url}/healthz`)
  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
  const levels = logLines(t, cli.stdout()).map((l) => l.level as number)
  t.ok(
    levels.every((l) => l >= 40),
    `--log-level warn beats LOG_LEVEL=debug: ${levels}`,
  )
})

t.test('logs, banner, metrics, admin index and probes of a running server', async (t) => {
  const password = 'pa55-word-from-env'
  const cli = await serve(t, ['--admin'], { MOBISITE_PASSWORD: password, MOBISITE_USER: 'ops' })
  const banner = cli.stderr()
  t.notMatch(banner + cli.stdout(), password, 'a given MOBISITE_PASSWORD is never printed')
  t.match(banner, /password: from MOBISITE_PASSWORD \(not shown\)/)
  t.match(banner, /curl -u 'ops:'"\$MOBISITE_PASSWORD"/, 'the curl lines read it from the shell')

  const admin = /^admin: +(\S+)/m.exec(banner)![1]!
  const index = await fetch(admin)
  t.equal(index.status, 200, 'the printed admin link answers 200')
  const controls = ((await index.json()) as { controls: Array<{ method: string; path: string }> }).controls
  t.ok(
    controls.some((c) => c.method === 'POST' && c.path === '/faults'),
    'and lists the controls',
  )

  const auth = basic('ops', password)
  const created = await fetch(`${cli.url}/api/sites/create`, {
    method: 'POST',
    headers: {
      authorization: auth,
      'content-type': 'application/json',
      cookie: 'session=cookie-secret',
      'x-request-id': 'trace-42',
    },
    body: JSON.stringify({ site_data: { site_name: 'logged-site', original_site_url: 'https://a.example' } }),
  })
  t.equal(created.status, 200)
  t.equal(created.headers.get('x-request-id'), 'trace-42', 'an incoming request id is kept and echoed')
  const read = await fetch(`${cli.url}/api/sites/logged-site`, { headers: { authorization: auth } })
  t.match(read.headers.get('x-request-id'), /^[0-9a-f]{16}-[0-9a-z]+$/, 'otherwise one is made')
  await fetch(`${cli.url}/dashboard/sso?token=query-token-secret`)
  await fetch(`${cli.url}/api/sites/logged-site`, { headers: { authorization: basic('ops', 'wrong-guess-secret') } })
  t.equal((await fetch(`${cli.url}/healthz`)).status, 200)
  t.equal((await fetch(`${cli.url}/readyz`)).status, 200)

  const metrics = await (await fetch(`${cli.url}/metrics`)).text()
  t.match(metrics, /process_cpu_user_seconds_total/, 'default Node metrics')
  t.match(
    metrics,
    /http_request_duration_seconds_count\{method="GET",route="\/api\/sites\/\{site_name\}",status_code="200"\} 1/,
  )
  t.match(metrics, /route="\/api\/sites\/create",status_code="200"/)
  t.notMatch(metrics, /logged-site/, 'no site name in any label')
  t.match(metrics, /mobisite_store_call_duration_seconds_count\{operation="\w+"\}/, 'store calls by operation')

  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
  const stdout = cli.stdout()
  const lines = logLines(t, stdout)
  for (const secret of [password, 'cookie-secret', 'query-token-secret', 'wrong-guess-secret', auth.slice(6)])
    t.notMatch(stdout, secret, `no secret in the logs: ${secret.slice(0, 6)}…`)
  const access = lines.find((l) => l.reqId === 'trace-42')
  t.match(access, {
    level: 30,
    route: '/api/sites/create',
    user: 'ops',
    req: { method: 'POST', path: '/api/sites/create' },
    res: { statusCode: 200 },
    responseTime: Number,
  })
  t.notOk(
    lines.some((l) => (l.req as { path?: string } | undefined)?.path === '/healthz' && (l.level as number) >= 30),
    'the probes are not logged at info',
  )
  t.ok(
    lines.some((l) => l.msg === 'listening'),
    'start-up is logged',
  )
  t.ok(
    lines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'),
    'shutdown is logged',
  )
  // Access lines wait to be formatted in bunches: at exit every one is out, in order with the others.
  const order = lines.map((l) => (l.reqId === undefined ? l.msg : (l.req as { path: string }).path))
  const lastRead = order.lastIndexOf('/api/sites/logged-site')
  t.ok(lastRead > order.indexOf('listening'), 'the access lines come after start-up')
  t.ok(lastRead < order.indexOf('shutting down'), 'and before the shutdown, as the requests came')
  t.equal(
    order.filter((what) => what === '/api/sites/logged-site').length,
    2,
    'the read and the wrong guess, the last request logged at info or above: each once',
  )
})

t.test(
  '--tls: HTTPS with a self-signed certificate printed on stderr; --public-url sets the link origin',
  async (t) => {
    const port = await freePort()
    const cli = runCli(t, ['--tls', '--public-url', 'https://sites.example.com'], {
      PORT: String(port),
      MOBISITE_PASSWORD: 'pw',
    })
    await waitFor(cli, 'printing its certificate', () => /END CERTIFICATE-----/.test(cli.stderr()))
    const ca = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(cli.stderr())![0]
    t.match(cli.stderr(), `https://127.0.0.1:${port}/api`, 'the banner names the https URL')
    const call = (method: string, path: string, body?: unknown) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          `https://127.0.0.1:${port}/api${path}`,
          {
            method,
            ca,
            // The forged Host must not decide which name the certificate is checked against.
            checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity('localhost', cert),
            headers: {
              authorization: basic('admin', 'pw'),
              host: 'evil.example',
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
          },
          (res) => {
            let text = ''
            res.on('data', (chunk: Buffer) => (text += chunk.toString()))
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
          },
        )
        req.on('error', reject)
        req.end(body === undefined ? undefined : JSON.stringify(body))
      })
    t.equal((await call('GET', '/sites/multiscreen')).status, 200, 'the certificate verifies against the printed PEM')
    await call('POST', '/sites/create', {
      site_data: { original_site_url: 'https://www.example.com', site_name: 'tlssite' },
    })
    t.equal((await call('POST', '/accounts/create', { account_name: 'tlsuser' })).status, 204)
    await call('POST', '/accounts/grant-access/tlsuser/sites/tlssite')
    const link = await call('GET', '/accounts/sso/tlsuser/link')
    t.equal(link.status, 200)
    t.match(
      JSON.parse(link.body).url,
      /^https:\/\/sites\.example\.com\/dashboard\/sso\?token=/,
      'the link takes --public-url, never the forged Host',
    )
    cli.child.kill('SIGTERM')
    t.equal(await cli.exited, 0)
  },
)

t.test('collector flags: --beacons-per-minute drops and counts, --geo-headers reads only that CDN', async (t) => {
  const cli = await serve(t, ['--quiet', '--beacons-per-minute', '2', '--geo-headers', 'cloudflare'], {
    MOBISITE_PASSWORD: 'pw',
  })
  const auth = { authorization: basic('admin', 'pw'), 'content-type': 'application/json' }
  const created = await fetch(`${cli.url}/api/sites/create`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ site_data: { site_name: 'beaconsite', original_site_url: 'https://www.example.com' } }),
  })
  t.equal(created.status, 200)
  for (let i = 0; i < 5; i++) {
    const beacon = await fetch(`${cli.url}/collect/beaconsite?visitor_id=v${i}`, {
      method: 'POST',
      headers: { 'cf-ipcountry': 'FR', 'cloudfront-viewer-country': 'DE' },
    })
    t.equal(beacon.status, 204, 'every beacon is answered 204')
  }
  let metrics = ''
  for (let i = 0; i < 100 && !/event="recorded"} 2/.test(metrics); i++) {
    await new Promise((r) => setTimeout(r, 50))
    metrics = await (await fetch(`${cli.url}/metrics`)).text()
  }
  t.match(metrics, /mobisite_collector_events_total\{event="accepted"} 2/, '2 beacons accepted')
  t.match(metrics, /mobisite_collector_events_total\{event="recorded"} 2/, 'and recorded')
  t.match(metrics, /mobisite_collector_events_total\{event="limited"} 3/, '3 past the per-minute limit, counted')
  t.match(metrics, /mobisite_pending_recordings 0/)
  const today = new Date().toISOString().slice(0, 10)
  const geo = await fetch(
    `${cli.url}/api/analytics/site/beaconsite?result=traffic&dimension=geo&from=${today}&to=${today}`,
    { headers: auth },
  )
  t.match(await geo.text(), /"country":"FR"/, "the country comes from Cloudflare's header, not CloudFront's")
  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
})

t.test('--no-metrics: no /metrics', async (t) => {
  const cli = await serve(t, ['--no-metrics', '--quiet'])
  t.equal((await fetch(`${cli.url}/metrics`)).status, 404)
  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
})

t.test('SIGTERM drains: readiness 503 at once, the in-flight request finishes, then exit 0', async (t) => {
  const cli = await serve(t, ['--admin', '--quiet', '--shutdown-delay', '0.5'], {
    MOBISITE_USER: 'ops',
    MOBISITE_PASSWORD: 'ops-pw',
  })
  const fault = await fetch(`${cli.url}/__admin/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ route: '/sites/{site_name}', latency_ms: 1500 }),
  })
  t.equal(fault.status, 201)
  const slow = fetch(`${cli.url}/api/sites/none`, { headers: { authorization: basic('ops', 'ops-pw') } })
  await new Promise((r) => setTimeout(r, 200))
  cli.child.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 150))
  const ready = await fetch(`${cli.url}/readyz`)
  t.equal(ready.status, 503, 'not ready during the grace period')
  t.match(await ready.json(), { status: 'not_ready', reason: 'shutting down' })
  const answer = await slow
  t.match(await answer.json(), { error_code: 'ResourceNotExist' }, 'the in-flight request got its answer')
  t.equal(await cli.exited, 0, 'then exit 0')
  const lines = logLines(t, cli.stdout())
  t.ok(
    lines.some((l) => l.msg === 'store closed; bye'),
    'the store was closed',
  )
  t.same(
    lines.filter((l) => l.route === '/readyz'),
    [],
    "the draining probe's 503 is logged at debug, as every probe is: not at info, nor as an error",
  )
})

t.test('a second signal exits at once', async (t) => {
  const cli = await serve(t, ['--admin', '--quiet', '--shutdown-timeout', '30'], {
    MOBISITE_USER: 'ops',
    MOBISITE_PASSWORD: 'ops-pw',
  })
  await fetch(`${cli.url}/__admin/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ latency_ms: 20_000 }),
  })
  const slow = fetch(`${cli.url}/api/sites/none`, { headers: { authorization: basic('ops', 'ops-pw') } }).catch(
    () => undefined,
  )
  await new Promise((r) => setTimeout(r, 200))
  const started = Date.now()
  cli.child.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 200))
  t.equal(cli.child.exitCode, null, 'still draining after the first')
  cli.child.kill('SIGTERM')
  const code = await cli.exited
  t.ok(Date.now() - started < 3_000, 'gone at once after the second')
  t.equal(code, 1, 'exit 1: the drain was cut short')
  await slow
})

t.test('a Redis outage and recovery are log lines; readiness follows', async (t) => {
  if (!ownRedisOrSkip(t, 'the CLI through a Redis outage')) return
  const redis = new OwnRedis(await freePort())
  await redis.start()
  t.teardown(() => redis.stop())
  const cli = await serve(t, ['--quiet', '--store', redis.url], {
    MOBISITE_REDIS_PREFIX: 'cli-ops-outage:',
    MOBISITE_PASSWORD: 'outage-pw',
  })
  const lines = () => logLines(t, cli.stdout())
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50))
    return check()
  }
  t.ok(
    lines().some((l) => l.msg === 'store connected'),
    'connected at start',
  )
  await redis.stop()
  t.ok(await until(() => lines().some((l) => l.msg === 'store connection lost')), 'the loss is logged')
  t.equal((await fetch(`${cli.url}/readyz`)).status, 503, 'not ready while Redis is down')
  await redis.start()
  t.ok(await until(() => lines().filter((l) => l.msg === 'store connected').length === 2), 'the recovery is logged')
  t.equal((await fetch(`${cli.url}/readyz`)).status, 200, 'ready again')
  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
})
