/**
 * What the served `/redirect.js` does on a page, run in node:vm with a
 * stand-in page (test/helpers/redirect-script.ts): the verdict (client hint,
 * else the User-Agent), the target (base path, path and query kept, the
 * opt-out parameter dropped, fragment kept, location.replace), the opt-out
 * cookie, the loop guard in any letter case, frames, the confirmation beacon
 * and its once-a-minute limit, and `window.mobisiteRedirect`.
 */
import t from 'tap'
import { createEngine, startServer } from '../../lib/index.js'
import { notPhones, phones } from '../helpers/agents-fixtures.js'
import { type PageSetup, rawRequest, runScript } from '../helpers/redirect-script.js'

const IPHONE = phones['iPhone Safari'] as string
const PIXEL = phones['Chrome Android'] as string
const DESKTOP = notPhones['Ubuntu Firefox'] as string
const IPAD = notPhones['iPad Safari'] as string
const MOBILE = 'https://m.example.com'

const engine = createEngine()
const running = await startServer({ engine })
t.teardown(async () => {
  await running.close()
  await engine.close()
})
const body = (await rawRequest(`${running.url}/redirect.js`)).body.toString('utf8')

/** A phone on `url` with the tag `data-mobile-url=MOBILE`, plus `extra`. */
const phoneOn = (url: string, extra: Partial<PageSetup> = {}) =>
  runScript(body, { url, userAgent: IPHONE, attributes: { 'data-mobile-url': MOBILE }, ...extra })

t.test('phones go to the same path and query on the mobile site, without a history entry', async (t) => {
  const run = phoneOn('https://www.example.com/shop/item?id=7&x=%C3%A9#reviews')
  t.same(run.replaced, ['https://m.example.com/shop/item?id=7&x=%C3%A9#reviews'])
  t.equal(run.display, 'none', 'the desktop page is hidden while the mobile one loads')
  t.same(run.cookieWrites, [], 'no cookie without the parameter')
  t.same(phoneOn('http://www.example.com/', { userAgent: PIXEL }).replaced, ['https://m.example.com/'])
  for (const base of ['https://m.example.com/m', 'https://m.example.com/m/', 'https://m.example.com/m//']) {
    t.same(phoneOn('https://www.example.com/a/b?c', { attributes: { 'data-mobile-url': base } }).replaced, [
      'https://m.example.com/m/a/b?c',
    ])
  }
  for (const [name, ua] of [
    ['desktop', DESKTOP],
    ['iPad', IPAD],
    ['no UA', ''],
  ]) {
    const run = phoneOn('https://www.example.com/', { userAgent: ua })
    t.same(run.replaced, [], `${name} stays`)
    t.equal(run.display, '', `${name}: the page shows`)
  }
})

t.test('the client hint wins over the User-Agent, as Sec-CH-UA-Mobile does', async (t) => {
  const brands = [{ brand: 'Chromium', version: '124' }]
  t.same(
    phoneOn('https://www.example.com/p', { userAgent: DESKTOP, userAgentData: { mobile: true, brands } }).replaced,
    ['https://www.example.com/p'.replace('www', 'm')],
  )
  t.same(phoneOn('https://www.example.com/p', { userAgentData: { mobile: false, brands } }).replaced, [])
  t.same(phoneOn('https://www.example.com/p', { userAgentData: { brands } }).replaced.length, 1, 'no boolean: the UA')
  // What Chromium reports with a User-Agent overridden without hints (it then sends no Sec-CH-UA-Mobile).
  t.same(
    phoneOn('https://www.example.com/p', { userAgentData: { mobile: false, brands: [] } }).replaced.length,
    1,
    'no brands: the UA decides',
  )
  t.same(phoneOn('https://www.example.com/p', { userAgentData: { mobile: false } }).replaced.length, 1)
  const page = phoneOn('https://www.example.com/', { userAgent: DESKTOP, userAgentData: { mobile: true, brands } })
  t.equal(page.api?.isMobile(), true, 'isMobile(): the page verdict')
  t.equal(page.api?.isMobile(DESKTOP), false, 'isMobile(ua): that string only')
  t.equal(page.api?.isMobile(IPHONE), true)
  t.equal(page.api?.isMobile(42), true, 'not a string: the page verdict')
})

t.test('opt-out: the parameter sets or clears the cookie; the cookie keeps phones on the page', async (t) => {
  const set = 'mobisite_no_redirect=1; Max-Age=2592000; Path=/; SameSite=Lax'
  for (const query of [
    '?no_redirect=true',
    '?no_redirect=1',
    '?no_redirect',
    '?no_redirect=',
    '?a=1&no%5Fredirect=true',
  ]) {
    const run = phoneOn(`http://www.example.com/p${query}`)
    t.same(run.replaced, [], `${query} stays`)
    t.same(run.cookieWrites, [set], `${query} sets the cookie`)
  }
  t.same(phoneOn('https://www.example.com/?no_redirect=true').cookieWrites, [`${set}; Secure`], 'Secure on https:')
  const desktop = phoneOn('https://www.example.com/?no_redirect=1', { userAgent: DESKTOP })
  t.same(desktop.cookieWrites.length, 1, 'set whatever the device, as the middleware does')

  // One browser: opt out, browse, opt back in.
  const jar = new Map<string, string>()
  t.same(phoneOn('https://www.example.com/?no_redirect=true', { jar }).replaced, [])
  t.equal(jar.get('mobisite_no_redirect'), '1')
  t.same(phoneOn('https://www.example.com/later/page', { jar }).replaced, [], 'later pages stay')
  const back = phoneOn('https://www.example.com/x?a=1&no_redirect=false&b=2', { jar })
  t.same(back.cookieWrites, ['mobisite_no_redirect=; Max-Age=0; Path=/; SameSite=Lax; Secure'])
  t.same(back.replaced, ['https://m.example.com/x?a=1&b=2'], 'redirected again, without the parameter')
  t.equal(jar.has('mobisite_no_redirect'), false)
  t.same(phoneOn('https://www.example.com/x', { jar }).replaced.length, 1)

  t.same(phoneOn('https://www.example.com/?no_redirect=0').replaced, ['https://m.example.com/'])
  t.same(phoneOn('https://www.example.com/?q=1&no%5fredirect=false#h').replaced, ['https://m.example.com/?q=1#h'])
  t.same(phoneOn('https://www.example.com/?no_redirect=yes&k').replaced, ['https://m.example.com/?k'], 'never sent on')
  t.same(phoneOn('https://www.example.com/', { jar: new Map([['mobisite_no_redirect', '0']]) }).replaced.length, 1)
  t.same(phoneOn('https://www.example.com/', { jar: new Map([['xmobisite_no_redirect', '1']]) }).replaced.length, 1)
})

t.test('loop guard: nothing on the mobile host under its base path, in any letter case', async (t) => {
  t.same(phoneOn('https://m.example.com/shop').replaced, [], 'on the mobile host')
  t.same(
    phoneOn('https://M.Example.COM/shop', { attributes: { 'data-mobile-url': 'https://m.EXAMPLE.com' } }).replaced,
    [],
  )
  t.same(
    phoneOn('https://m.example.com/', { attributes: { 'data-mobile-url': 'https://m.example.com:443/' } }).replaced,
    [],
  )
  const sameHost = { attributes: { 'data-mobile-url': 'https://www.example.com/Mobile' } }
  for (const path of ['/Mobile', '/mobile/', '/MOBILE/page', '/mobile?x=1'])
    t.same(phoneOn(`https://www.example.com${path}`, sameHost).replaced, [], `${path} is under /Mobile`)
  t.same(phoneOn('https://www.example.com/mobiles', sameHost).replaced, ['https://www.example.com/Mobile/mobiles'])
  t.same(
    phoneOn('http://www.example.com/m', { attributes: { 'data-mobile-url': 'https://www.example.com/m' } }).replaced,
    [],
    'hosts are compared without the scheme, as the middleware compares them',
  )
  t.same(phoneOn('https://m.example.com:8443/p').replaced, ['https://m.example.com/p'], 'another port, another host')
})

t.test('no redirect in a frame, without the tag, or with a bad data-mobile-url', async (t) => {
  t.same(phoneOn('https://www.example.com/', { framed: true }).replaced, [], 'framed')
  const bare = phoneOn('https://www.example.com/', { attributes: {} })
  t.same(bare.replaced, [])
  t.equal(bare.api?.isMobile(), true, 'window.mobisiteRedirect is defined all the same')
  t.match(bare.api?.version, /^[0-9a-f]{12}$/)
  t.same(phoneOn('https://www.example.com/', { attributes: null }).replaced, [], 'no document.currentScript')
  for (const bad of [
    '/m',
    'm.example.com',
    'ftp://m.example.com',
    'https://m.example.com/?a=1',
    'https://u:p@m.example.com',
  ]) {
    const run = phoneOn('https://www.example.com/', { attributes: { 'data-mobile-url': bad } })
    t.same(run.replaced, [], bad)
    t.equal(run.warnings.length, 1, `${bad}: one warning in the console`)
  }
})

t.test('data-site: one beacon to this server before leaving, at most once a minute per site', async (t) => {
  const storage = new Map<string, string>()
  const tag = { 'data-mobile-url': MOBILE, 'data-site': 'shop1' }
  const src = 'https://mobisite.example.com:8443/static/redirect.js?v=2'
  const first = phoneOn('https://www.example.com/p', { attributes: tag, storage, src })
  t.same(first.beacons, ['https://mobisite.example.com:8443/collect/shop1?e=redirect'], "to the script's origin")
  t.same(first.replaced.length, 1)
  t.same(phoneOn('https://www.example.com/q', { attributes: tag, storage, src }).beacons, [], 'not again this minute')
  const other = { 'data-mobile-url': MOBILE, 'data-site': 'shop 2/é' }
  t.same(
    phoneOn('https://www.example.com/', { attributes: other, storage, src }).beacons,
    ['https://mobisite.example.com:8443/collect/shop%202%2F%C3%A9?e=redirect'],
    'another site confirms, its name encoded',
  )
  for (const key of storage.keys()) storage.set(key, String(Date.now() - 61_000))
  t.same(phoneOn('https://www.example.com/', { attributes: tag, storage, src }).beacons.length, 1, 'a minute later')
  storage.set('mobisite_confirmed:shop1', String(Date.now() + 3_600_000))
  t.same(
    phoneOn('https://www.example.com/', { attributes: tag, storage, src }).beacons.length,
    1,
    'a future time is stale',
  )

  const blocked = () => phoneOn('https://www.example.com/', { attributes: tag, storage: 'throws', src })
  t.same(blocked().beacons.length, 1, 'blocked storage: confirmed anyway')
  t.same(blocked().beacons.length, 1)
  const refused = new Map<string, string>()
  t.same(phoneOn('https://www.example.com/', { attributes: tag, storage: refused, beacon: false }).beacons.length, 1)
  t.equal(refused.size, 0, 'a beacon the browser refused is not counted')
  t.same(
    phoneOn('https://www.example.com/', { attributes: tag, beacon: undefined }).replaced.length,
    1,
    'no sendBeacon',
  )
  t.same(phoneOn('https://www.example.com/', { attributes: tag, src: '' }).beacons, [], 'an inline copy: no origin')
  t.same(phoneOn('https://www.example.com/', { attributes: { 'data-mobile-url': MOBILE } }).beacons, [], 'no data-site')
  t.same(
    phoneOn('https://www.example.com/', { attributes: tag, userAgent: DESKTOP }).beacons,
    [],
    'no redirect, no beacon',
  )
  t.same(phoneOn('https://m.example.com/', { attributes: tag }).beacons, [], 'loop guard: no beacon')
})
