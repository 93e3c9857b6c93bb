/**
 * startServer (url, `${url}/api`, close) and the CLI behind `npm start`: it
 * prints a curl line that answers 200 with a site_name, and SIGTERM stops it
 * with exit code 0.
 */
import { exec } from 'node:child_process'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { createEngine, startServer } from '../../lib/index.js'
import { FakeClock, RecordingBuilder } from '../helpers/api.js'
import { type Cli, lines as linesOf, root, startCli, stop } from '../helpers/cli.js'
import { checkedFetch } from '../helpers/openapi-check.js'

const run = promisify(exec)
const auth = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
})

t.test('startServer serves the API under <url>/api until closed', async (t) => {
  const clock = new FakeClock('2026-01-02T03:04:05')
  const builder = new RecordingBuilder()
  const engine = createEngine({ now: clock.now, builder: builder.build })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'pw' })
  const server = await startServer({ engine })
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  t.equal(server.engine, engine)

  const created = await checkedFetch(`${server.url}/api/sites/create`, {
    method: 'POST',
    headers: { ...auth('alice', 'pw'), 'content-type': 'application/json' },
    body: JSON.stringify({ site_data: { original_site_url: 'https://www.served.example/' }, publish_now: true }),
  })
  t.equal(created.status, 200)
  t.same(await created.json(), { site_name: 'servedexample' })
  t.same(builder.calls, ['servedexample'], 'the given builder ran')
  t.equal(
    (await engine.as('alice').getSite('servedexample')).last_published_date,
    '2026-01-02T03:04:05',
    'the given clock',
  )
  const outside = await fetch(`${server.url}/sites/created`, { headers: auth('alice', 'pw') })
  t.equal(outside.status, 404, 'nothing outside /api')
  t.same(await outside.json(), { error_code: 'NotFound', message: 'no endpoint at GET /sites/created' }, 'a JSON 404')
  for (const [method, path] of [
    ['GET', '/'],
    ['GET', '/favicon.ico'],
    ['POST', '/nothing/here'],
    ['DELETE', '/apix'],
    ['GET', '/dashboard/nothing/here'],
  ]) {
    const res = await fetch(`${server.url}${path}`, { method })
    t.equal(res.status, 404, `${method} ${path}: 404`)
    t.match(res.headers.get('content-type'), /^application\/json/, `${method} ${path}: JSON`)
    t.equal(((await res.json()) as { error_code: string }).error_code, 'NotFound', `${method} ${path}: NotFound`)
  }

  // A kept-alive idle connection must not hold close() up.
  await checkedFetch(`${server.url}/api/agents`, { headers: auth('alice', 'pw') }).then((res) => res.text())
  await server.close()
  await server.close()
  await t.rejects(fetch(`${server.url}/api/agents`, { headers: auth('alice', 'pw') }), 'closed: no longer answers')
  t.equal(
    (await engine.as('alice').getSite('servedexample')).site_name,
    'servedexample',
    'close leaves the engine open',
  )
})

t.test('startServer with no options: its own engine on a free port', async (t) => {
  const server = await startServer()
  t.teardown(async () => {
    await server.close()
    await server.engine.close()
  })
  const other = await startServer({ engine: server.engine })
  t.teardown(() => other.close())
  t.not(server.url, other.url, 'two servers, two ports')
  await server.engine.addMasterAccount({ user: 'u', password: 'p' })
  const res = await checkedFetch(`${other.url}/api/agents`, { headers: auth('u', 'p') })
  t.equal(res.status, 200, 'the shared engine serves both')
  t.equal(await res.json(), server.engine.getAgents())
})

t.test('startServer rejects when the port is taken', async (t) => {
  const first = await startServer()
  t.teardown(async () => {
    await first.close()
    await first.engine.close()
  })
  const port = Number(new URL(first.url).port)
  await t.rejects(startServer({ engine: first.engine, port }), { code: 'EADDRINUSE' })
})

/** Starts the CLI with `env` and resolves with it and its banner's lines (the curl line among them) once all are out. */
async function startWithCurl(t: Test, env: Record<string, string>): Promise<{ cli: Cli; lines: string[] }> {
  const cli = await startCli(t, [], /^logs:/, env)
  return { cli, lines: linesOf(cli.stderr()) }
}

/** The command of the printed `try:` line. */
const curlOf = (lines: string[]): string => lines.find((line) => line.startsWith('try:'))!.replace(/^try:\s*/, '')

t.test('the CLI prints a curl line that answers 200 with a site_name; SIGTERM exits 0', async (t) => {
  const { cli, lines } = await startWithCurl(t, {})
  const api = /mobisite API: (http:\/\/127\.0\.0\.1:(\d+)\/api)/.exec(lines.join('\n'))
  t.ok(api, 'prints the API address')
  t.not(api?.[2], '0', 'the real port, not 0')
  const curl = curlOf(lines)
  t.match(curl, /^curl /)

  const first = await run(curl, { cwd: root })
  const body = JSON.parse(first.stdout) as { site_name: string }
  t.equal(body.site_name, 'examplecom', 'the exact line creates a site')
  const status = await run(`${curl} -s -o /dev/null -w '%{http_code}'`, { cwd: root })
  t.equal(status.stdout, '200', 'and answers 200')

  const password = /^password:\s+(\S+) \(generated\)$/m.exec(lines.join('\n'))?.[1]
  t.ok(password, 'a generated password is printed')
  const site = await checkedFetch(`${api![1]}/sites/examplecom`, { headers: auth('admin', password!) })
  t.equal(site.status, 200, 'the printed credentials work')

  t.equal(await stop(cli), 0, 'exit code 0')
  t.equal(cli.child.signalCode, null)
})

t.test('the CLI never prints a password from the environment; its curl line reads it from the shell', async (t) => {
  const password = `it's a "pass":word $HOME \`x\``
  const { cli, lines } = await startWithCurl(t, { MOBISITE_USER: 'ops', MOBISITE_PASSWORD: password })
  t.match(lines.join('\n'), /user:\s+ops/)
  t.notMatch(lines.join('\n'), 'pass":word', 'the password is not printed')
  const res = await run(`${curlOf(lines)} -s -w '\\n%{http_code}'`, {
    cwd: root,
    env: { ...process.env, MOBISITE_PASSWORD: password },
  })
  const [json, code] = res.stdout.split('\n')
  t.equal(code, '200')
  t.equal(JSON.parse(json!).site_name, 'examplecom')
  t.equal(await stop(cli, 'SIGINT'), 0, 'SIGINT exits 0 too')
})
