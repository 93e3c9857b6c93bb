/**
 * Every answer of Duda's sites and site-reporting paths conforms to the
 * OpenAPI document: each operation tagged "Sites (Duda)" is called for its
 * success and its errors through the fixture whose every response is checked
 * (helpers/api.ts), and no such operation is left uncalled.
 */
import t from 'tap'
import { openApiDocument } from '../../lib/http/openapi.js'
import { isInvalid, isMissing, setup } from '../helpers/api.js'

type Op = { operationId: string; tags: string[] }
const doc = openApiDocument() as { paths: Record<string, Record<string, Op>> }
const dudaOperations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method, op]) => method !== 'servers' && op.tags.includes('Sites (Duda)'))
    .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, id: op.operationId })),
)

t.test('every Duda sites answer, successes and errors, conforms to the document', async (t) => {
  const f = await setup(t)
  const { alice, bob } = f
  const seen = new Map<string, Set<number>>()
  const hit = (key: string, status: number): void => {
    seen.set(key, (seen.get(key) ?? new Set()).add(status))
  }
  const call = async (key: string, run: Promise<{ status: number }>, status: number) => {
    const res = await run
    t.equal(res.status, status, key)
    hit(key, res.status)
    return res
  }
  const base = '/sites/multiscreen'
  await call(
    `POST ${base}/create`,
    alice.post(`${base}/create`, { default_domain_prefix: 'dudasite', template_id: 7 }),
    200,
  )
  await call(`POST ${base}/create`, alice.post(`${base}/create`, { template: 1 }), 400)
  await call(`POST ${base}/create`, alice.post(`${base}/create`, { default_domain_prefix: 'dudasite' }), 400)
  await call(`GET ${base}`, alice.get(`${base}?offset=0&limit=10&sort=LAST_PUBLISHED_DATE&direction=desc`), 200)
  await call(`GET ${base}`, alice.get(`${base}?limit=101`), 400)
  await call(`GET ${base}/{site_name}`, alice.get(`${base}/dudasite`), 200)
  await call(`GET ${base}/{site_name}`, bob.get(`${base}/dudasite`), 400)
  await call(`POST ${base}/update/{site_name}`, alice.post(`${base}/update/dudasite`, { external_uid: 'x-1' }), 204)
  await call(`POST ${base}/update/{site_name}`, alice.post(`${base}/update/dudasite`, {}), 400)
  await call(`GET ${base}/byexternalid/{external_uid}`, alice.get(`${base}/byexternalid/x-1`), 200)
  await call(`GET ${base}/byexternalid/{external_uid}`, alice.get(`${base}/byexternalid/x-1?limit=1`), 400)
  await call(`POST ${base}/publish/{site_name}`, alice.post(`${base}/publish/dudasite`), 204)
  await call(`POST ${base}/publish/{site_name}`, alice.post(`${base}/publish/nosuchsite`), 400)
  await call(`GET ${base}/published`, alice.get(`${base}/published?lastDays=30`), 200)
  await call(`GET ${base}/published`, alice.get(`${base}/published?lastDays=-1`), 400)
  await call(`POST ${base}/unpublish/{site_name}`, alice.post(`${base}/unpublish/dudasite`), 204)
  await call(`POST ${base}/unpublish/{site_name}`, bob.post(`${base}/unpublish/dudasite`), 400)
  await call(`GET ${base}/unpublished`, alice.get(`${base}/unpublished`), 200)
  await call(`GET ${base}/unpublished`, alice.get(`${base}/unpublished?days=1`), 400)
  await call(`GET ${base}/created`, alice.get(`${base}/created?from=2025-03-01`), 200)
  await call(`GET ${base}/created`, alice.get(`${base}/created?from=yesterday`), 400)
  await call(`POST ${base}/reset/{site_name}`, alice.post(`${base}/reset/dudasite`, { template_id: '8' }), 204)
  await call(`POST ${base}/reset/{site_name}`, alice.post(`${base}/reset/dudasite`, { site_data: { x: 1 } }), 400)
  await call(`GET ${base}/{site_name}/activities`, alice.get(`${base}/dudasite/activities?limit=2&offset=1`), 200)
  await call(`GET ${base}/{site_name}/activities`, alice.get(`${base}/nosuchsite/activities`), 400)
  const dup = `POST ${base}/duplicate/{site_name}`
  await call(dup, alice.post(`${base}/duplicate/dudasite`, { new_default_domain_prefix: 'dudacopy' }), 200)
  await call(dup, alice.post(`${base}/duplicate/dudasite`, { new_default_domain_prefix: 'dudacopy' }), 400)
  await call(dup, alice.post(`${base}/duplicate/dudasite`, {}), 400)
  await call(`DELETE ${base}/{site_name}`, alice.del(`${base}/dudacopy`), 204)
  const gone = await call(`DELETE ${base}/{site_name}`, alice.del(`${base}/dudacopy`), 400)
  isMissing(t, gone as never)
  // A wrong method on a Duda path: 405 with Allow, as the document says.
  t.equal((await alice.get(`${base}/publish/dudasite`)).status, 405)
  for (const { key, id } of dudaOperations) {
    const statuses = seen.get(key)
    t.ok(statuses?.has(400) && [...statuses].some((s) => s < 300), `${id} answered a success and a 400`)
  }
  t.equal(dudaOperations.length, 14)
})

t.test('multiscreen, published and unpublished are reserved site names on the spec path too', async (t) => {
  const f = await setup(t)
  for (const name of ['multiscreen', 'Published', 'UNPUBLISHED']) {
    const res = await f.alice.post('/sites/create', {
      site_data: { site_name: name, original_site_url: 'https://reserved.example/' },
    })
    t.match(isInvalid(t, res, name), /reserved/)
  }
  t.equal((await f.alice.get('/sites/multiscreen')).status, 200, 'GET /sites/multiscreen is the list')
})
