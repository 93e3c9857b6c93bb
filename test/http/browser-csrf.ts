/**
 * Cross-site request forgery in a real browser (headless Chromium): a page on
 * another origin submits forms and no-cors fetches to the API while the
 * browser holds the master's Basic credentials (cached for the API's origin,
 * or written into the form's URL). Every attempt reaches the API and is
 * refused, and nothing changes. A page of the API's own origin, as a control,
 * can change data, so the refusals are the guards' doing.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import t from 'tap'
import { apiRouter, createEngine } from '../../lib/index.js'
import { browserOrSkip } from '../helpers/browser.js'

const USER = 'alice'
const PASSWORD = 'alice-secret'

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return (server.address() as AddressInfo).port
}

/** The attacker's page: forms the way a hostile site would write them. */
function attackPage(api: string, apiWithCredentials: string): string {
  const smuggle = JSON.stringify({
    site_data: { site_name: 'csrfsite', original_site_url: 'https://x.example/' },
    pad: '',
  }).slice(0, -2)
  return `<!doctype html><html><body>
<form id="plain" method="post" enctype="text/plain" action="${api}/sites/create"><input name='${smuggle}' value='"}'></form>
<form id="plain-url" method="post" enctype="text/plain" action="${apiWithCredentials}/sites/create"><input name='${smuggle}' value='"}'></form>
<form id="publish" method="post" action="${api}/sites/publish/mysite"></form>
<form id="publish-url" method="post" action="${apiWithCredentials}/sites/publish/mysite"></form>
<form id="multipart" method="post" enctype="multipart/form-data" action="${api}/sites/update/mysite"><input name="site_data" value='{"site_vertical":"pwned"}'></form>
<form id="grant" method="post" action="${api}/accounts/grant-access/acc/sites/mysite"></form>
</body></html>`
}

t.test('a page on another site cannot make a logged-in browser change data', async (t) => {
  const browser = await browserOrSkip(t, 'the cross-site form test')
  if (!browser) return
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: USER, password: PASSWORD, partner: true })
  await engine
    .as(USER)
    .createSite({ site_data: { site_name: 'mysite', original_site_url: 'https://www.example.com/' } })
  await engine.as(USER).createAccount({ account_name: 'acc' })

  const seen: { method: string; path: string; status: number }[] = []
  const app = express()
  app.use((req, res, next) => {
    // Read now: the mounted router rewrites req.url while it handles the request.
    const path = req.path
    res.on('finish', () => seen.push({ method: req.method, path, status: res.statusCode }))
    next()
  })
  app.get('/own.html', (_req, res) => {
    res.type('html').send('<!doctype html><p>own page</p>')
  })
  app.use('/api', apiRouter(engine))
  const apiServer = createServer(app)
  const apiPort = await listen(apiServer)
  t.teardown(() => new Promise<void>((resolve) => apiServer.close(() => resolve())))
  const api = `http://127.0.0.1:${apiPort}/api`
  const apiWithCredentials = `http://${USER}:${PASSWORD}@127.0.0.1:${apiPort}/api`

  // localhost and 127.0.0.1 are different sites to a browser: Sec-Fetch-Site says cross-site.
  const evil = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(attackPage(api, apiWithCredentials))
  })
  const evilPort = await listen(evil)
  t.teardown(() => new Promise<void>((resolve) => evil.close(() => resolve())))
  const evilUrl = `http://localhost:${evilPort}/`

  const cached = await browser.newContext({ httpCredentials: { username: USER, password: PASSWORD } })
  const bare = await browser.newContext()
  t.teardown(async () => {
    await cached.close()
    await bare.close()
  })

  const submit = async (context: typeof cached, form: string, path: string): Promise<void> => {
    const page = await context.newPage()
    await page.goto(evilUrl)
    const before = seen.length
    await page.locator(`#${form}`).evaluate((element) => (element as unknown as { submit(): void }).submit())
    const arrived = await waitFor(() => seen.slice(before).some((s) => s.path === path && s.status !== 401))
    const answers = seen.slice(before).filter((s) => s.path === path)
    t.ok(arrived, `${form}: the request reached the API with credentials (${answers.map((s) => s.status).join(', ')})`)
    t.ok(
      answers.every((s) => s.status === 403 || s.status === 401),
      `${form}: refused (${answers.map((s) => s.status).join(', ')})`,
    )
    await page.close()
  }

  await submit(cached, 'plain', '/api/sites/create')
  await submit(cached, 'publish', '/api/sites/publish/mysite')
  await submit(cached, 'multipart', '/api/sites/update/mysite')
  await submit(cached, 'grant', '/api/accounts/grant-access/acc/sites/mysite')
  await submit(bare, 'plain-url', '/api/sites/create')
  await submit(bare, 'publish-url', '/api/sites/publish/mysite')

  // A script on the other site: no-cors fetches with the browser's credentials.
  const page = await cached.newPage()
  await page.goto(evilUrl)
  const before = seen.length
  await page.evaluate(async (target) => {
    const body = JSON.stringify({ site_data: { site_name: 'csrffetch', original_site_url: 'https://x.example/' } })
    await fetch(`${target}/sites/create`, {
      method: 'POST',
      mode: 'no-cors',
      credentials: 'include',
      headers: { 'content-type': 'text/plain' },
      body,
    }).catch(() => {})
    await fetch(`${target}/sites/publish/mysite`, { method: 'POST', mode: 'no-cors', credentials: 'include' }).catch(
      () => {},
    )
  }, api)
  // Chromium answers the 401 challenge of a cross-site subresource without credentials, so 401 or 403.
  t.ok(await waitFor(() => seen.length - before >= 2), 'the fetches reached the API')
  t.ok(
    seen.slice(before).every((s) => s.status === 403 || s.status === 401),
    `fetches refused (${seen
      .slice(before)
      .map((s) => s.status)
      .join(', ')})`,
  )

  const sites = await engine.as(USER).sitesCreated({ from: '2000-01-01' })
  t.strictSame(
    sites.map((s) => s.site_name),
    ['mysite'],
    'no site was created',
  )
  t.strictSame((await engine.billing(USER)).charges, [], 'nothing was charged')
  const site = await engine.as(USER).getSite('mysite')
  t.notOk(site.last_published_date, 'the site was not published')
  t.notOk(site.site_vertical, 'the site was not updated')
  t.strictSame(await engine.as(USER).accountSites('acc'), [], 'no access was granted')

  // Control: the API's own origin may change data from the same browser.
  const own = await cached.newPage()
  await own.goto(`http://127.0.0.1:${apiPort}/own.html`)
  const status = await own.evaluate(async (target) => {
    const res = await fetch(`${target}/sites/publish/mysite?test=true`, { method: 'POST', credentials: 'include' })
    return res.status
  }, api)
  t.equal(status, 204, 'a same-origin page publishes')
  t.ok((await engine.as(USER).getSite('mysite')).last_published_date, 'and the site is published')
})

async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 25))
  }
  return check()
}
