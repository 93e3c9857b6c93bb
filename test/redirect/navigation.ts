/**
 * Only page navigations are redirected: with Sec-Fetch-Dest only `document`;
 * without it only when Accept admits text/html; never X-Requested-With;
 * Sec-Fetch-Mode is not consulted. Everything else a phone asks for (an
 * extensionless image, fetch/XHR, .docx, .rss, a web manifest) gets the
 * desktop site's answer, with the verdict and Vary still set.
 */
import request from 'supertest'
import t from 'tap'
import { phones, redirectApp } from '../helpers/redirect-app.js'

const IPHONE = phones['iPhone Safari'] as string
const MOBILE = 'https://m.example.com'
const { app } = redirectApp({ mobileUrl: MOBILE })

const statusOf = async (path: string, headers: Record<string, string>) => {
  let req = request(app).get(path).set('User-Agent', IPHONE)
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value)
  const res = await req
  return { status: res.status, vary: res.headers.vary as string | undefined, mobisite: res.body?.mobisite }
}

t.test('with Sec-Fetch-Dest, only document is redirected', async (t) => {
  t.equal((await statusOf('/page', { 'Sec-Fetch-Dest': 'document' })).status, 302)
  for (const dest of [
    'image',
    'empty',
    'script',
    'style',
    'font',
    'manifest',
    'iframe',
    'frame',
    'video',
    'audio',
    'worker',
    'report',
    'object',
    'embed',
  ]) {
    const r = await statusOf('/resource', { 'Sec-Fetch-Dest': dest, Accept: '*/*' })
    t.equal(r.status, 200, `Sec-Fetch-Dest: ${dest}`)
    t.same(r.mobisite, { mobile: true, by: 'user-agent', optedOut: false }, `${dest}: the verdict is still exposed`)
    t.equal(r.vary, 'User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie, X-Requested-With', `${dest}: and varies`)
  }
  t.equal(
    (await statusOf('/page', { 'Sec-Fetch-Dest': 'image', Accept: 'text/html' })).status,
    200,
    'Sec-Fetch-Dest wins over Accept',
  )
})

t.test('Sec-Fetch-Mode is not consulted', async (t) => {
  t.equal((await statusOf('/page', { 'Sec-Fetch-Dest': 'document', 'Sec-Fetch-Mode': 'cors' })).status, 302)
  t.equal((await statusOf('/page', { 'Sec-Fetch-Dest': 'empty', 'Sec-Fetch-Mode': 'navigate' })).status, 200)
  t.equal((await statusOf('/page', { 'Sec-Fetch-Mode': 'navigate', Accept: 'application/json' })).status, 200)
})

t.test('without Sec-Fetch-Dest, Accept decides', async (t) => {
  const admitted = [
    'text/html',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    '*/*',
    'text/*',
    'application/json, text/*;q=0.5',
    'TEXT/HTML',
    'image/png, */*;q=0.1',
  ]
  for (const accept of admitted) t.equal((await statusOf('/page', { Accept: accept })).status, 302, `Accept: ${accept}`)
  t.equal((await request(app).get('/page').set('User-Agent', IPHONE).unset('Accept')).status, 302, 'no Accept')
  const refused = [
    'application/json',
    'image/avif,image/webp',
    'application/rss+xml',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/manifest+json',
    'text/html;q=0',
    'text/html;q=0.0, */*;q=0',
    'text/plain',
  ]
  for (const accept of refused) t.equal((await statusOf('/page', { Accept: accept })).status, 200, `Accept: ${accept}`)
})

t.test('X-Requested-With is never redirected', async (t) => {
  t.equal((await statusOf('/page', { 'X-Requested-With': 'XMLHttpRequest', Accept: 'text/html' })).status, 200)
  t.equal((await statusOf('/page', { 'X-Requested-With': 'XMLHttpRequest', 'Sec-Fetch-Dest': 'document' })).status, 200)
})

t.test('extensionless assets, feeds, documents and manifests as browsers fetch them', async (t) => {
  const cases: Array<[string, Record<string, string>]> = [
    [
      '/img/avatar',
      { 'Sec-Fetch-Dest': 'image', Accept: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8' },
    ],
    ['/api-v2/items', { 'Sec-Fetch-Dest': 'empty', Accept: '*/*' }],
    ['/files/report.docx', { Accept: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }],
    ['/feed.rss', { Accept: 'application/rss+xml, application/atom+xml' }],
    ['/site.webmanifest', { 'Sec-Fetch-Dest': 'manifest', Accept: '*/*' }],
  ]
  for (const [path, headers] of cases) t.equal((await statusOf(path, headers)).status, 200, path)
})

t.test('Accept weights are read', async (t) => {
  const verdict = async (accept: string) => (await statusOf('/page', { Accept: accept })).status
  t.equal(await verdict('text/html; level=1; q=0.5'), 302)
  t.equal(await verdict('text/html;q=garbage'), 302, 'an unreadable q counts as 1')
  t.equal(await verdict('text/html;q=0, text/*;q=0, */*;q=0'), 200)
  t.equal(await verdict('application/xhtml+xml'), 200, 'only text/html, text/* and */* admit it')
  t.equal(await verdict(''), 302, 'an empty Accept is like none')
})
