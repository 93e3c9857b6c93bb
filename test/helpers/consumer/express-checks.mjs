// Every Express-facing export of the packed mobisite, on whichever express the consumer has
// (run by test/packaging/package.ts in one project with express@4 and one with express@5; the two
// must print the same answers).
import { once } from 'node:events'
import express from 'express'
import { analyticsCollector, apiRouter, createEngine, dashboardRouter, mobileRedirect, redirectScript } from 'mobisite'
import { adminRouter } from 'mobisite/testing'

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1'
const engine = createEngine()
await engine.addMasterAccount({ user: 'u', password: 'p', partner: true })

const app = express()
app.use(mobileRedirect({ mobileUrl: 'https://m.example.com', skip: (req) => req.path !== '/shop' }))
app.use('/api', apiRouter(engine))
app.use('/dashboard', dashboardRouter(engine))
app.use('/collect', analyticsCollector(engine, { siteName: 'expresscheck' }))
app.use('/redirect.js', redirectScript(engine))
app.use('/__admin', adminRouter(engine))
app.get('/shop', (_req, res) => res.send('desktop shop'))
const server = app.listen(0, '127.0.0.1')
await once(server, 'listening')
const origin = `http://127.0.0.1:${server.address().port}`

const auth = { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }
const json = { ...auth, 'content-type': 'application/json' }
/** Status, and the body as JSON or its first characters; a port in it is written as :PORT. */
async function call(path, init = {}) {
  const res = await fetch(`${origin}${path}`, { redirect: 'manual', ...init })
  const text = (await res.text()).replaceAll(origin, 'ORIGIN')
  let body
  try {
    body = JSON.parse(text)
  } catch {
    body = text.slice(0, 40)
  }
  const location = res.headers.get('location')?.replaceAll(origin, 'ORIGIN') ?? null
  return { status: res.status, body, location, cookie: res.headers.get('set-cookie')?.split('=')[0] ?? null }
}

const answers = {}
answers.create = await call('/api/sites/create', {
  method: 'POST',
  headers: json,
  body: JSON.stringify({ site_data: { site_name: 'expresscheck', original_site_url: 'https://www.example.com/' } }),
})
answers.get = (await call('/api/sites/multiscreen/expresscheck', { headers: auth })).body.site_name
answers.badJson = await call('/api/sites/create', { method: 'POST', headers: json, body: '{' })
answers.unknownPath = await call('/api/no/such/path', { headers: auth })
answers.account = await call('/api/accounts/create', {
  method: 'POST',
  headers: json,
  body: JSON.stringify({ account_name: 'reader' }),
})
await call('/api/accounts/grant-access/reader/sites/expresscheck', {
  method: 'POST',
  headers: json,
  body: JSON.stringify({ permissions: ['STATS_TAB'] }),
})
const link = await call('/api/accounts/sso/reader/link', { headers: auth })
answers.ssoLink = link.body.url.replace(/token=[^&]+/, 'token=T')
const landing = await fetch(link.body.url.replace('ORIGIN', origin), { redirect: 'manual' })
const session = landing.headers.get('set-cookie')?.split(';')[0]
answers.ssoLanding = { status: landing.status, location: landing.headers.get('location') }
answers.dashboard = (await call('/dashboard/', { headers: { cookie: session } })).status
answers.beacon = (await call('/collect', { method: 'POST', headers: { 'user-agent': IPHONE } })).status
answers.script = (await call('/redirect.js')).status
answers.phone = await call('/shop', { headers: { 'user-agent': IPHONE } })
answers.desktop = await call('/shop')
answers.adminReset = (await call('/__admin/reset', { method: 'POST' })).status
answers.afterReset = (await call('/api/sites/multiscreen/expresscheck', { headers: auth })).status

server.close()
await engine.close()
console.log(JSON.stringify(answers))
