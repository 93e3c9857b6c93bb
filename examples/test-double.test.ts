/**
 * How another project uses mobisite as a test double: a real, stateful HTTP
 * server with a fake clock and inspectable billing, started in one line.
 * This file imports the package by name, exactly as a dependent project would.
 */
import t from 'tap'
import { createEngine, startServer } from 'mobisite'

// The code under test in "your" project: a tiny client of the service.
async function launchSite(baseUrl: string, auth: string, desktopUrl: string): Promise<string> {
  const headers = { authorization: `Basic ${Buffer.from(auth).toString('base64')}`, 'content-type': 'application/json' }
  const created = await fetch(`${baseUrl}/sites/create`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ site_data: { original_site_url: desktopUrl } }),
  })
  if (created.status !== 200) throw new Error(`create failed: ${await created.text()}`)
  const { site_name } = (await created.json()) as { site_name: string }
  const published = await fetch(`${baseUrl}/sites/publish/${site_name}`, { method: 'POST', headers })
  if (published.status !== 204) throw new Error(`publish failed: ${await published.text()}`)
  return site_name
}

t.test('launching a site publishes it once and charges once', async (t) => {
  let clock = new Date('2026-03-01T09:30:00Z')
  const engine = createEngine({ now: () => clock })
  await engine.addMasterAccount({ user: 'shop', password: 's3cret', partner: false })
  const server = await startServer({ engine })
  t.teardown(() => server.close())

  const name = await launchSite(`${server.url}/api`, 'shop:s3cret', 'https://www.shop.example')
  t.equal(name, 'shopexample')

  clock = new Date('2026-03-02T00:00:00Z')
  const site = await engine.as('shop').getSite(name)
  t.equal(site.last_published_date, '2026-03-01T09:30:00')

  const billing = await engine.billing('shop')
  t.same(billing.charges, [{ site_name: name, at: new Date('2026-03-01T09:30:00Z') }])
  t.same(billing.subscriptions, [{ site_name: name, status: 'active' }])
})

t.test('the double rejects what the real service rejects', async (t) => {
  const server = await startServer()
  t.teardown(() => server.close())
  await server.engine.addMasterAccount({ user: 'shop', password: 'pw' })
  const res = await fetch(`${server.url}/api/sites/create`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('shop:pw').toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ site_data: { original_site_url: 'not a url' } }),
  })
  t.equal(res.status, 400)
  t.same(await res.json(), {
    error_code: 'InvalidInput',
    message: 'site_data.original_site_url must be an absolute http(s) URL',
  })
})
