/**
 * A body sent to an endpoint that reads none (the public OpenAPI document)
 * must not cost the answer: a socket closed with unread data is reset by the
 * kernel, which destroyed the document in flight (found by test/http-fuzz.ts).
 */
import request from 'supertest'
import t from 'tap'
import { createEngine, startServer } from 'mobisite'

t.test('GET /api/openapi.json with a large unread body still gets its answer', async (t) => {
  const engine = createEngine()
  const server = await startServer({ engine })
  t.teardown(() => server.close())
  // Deep and large enough (about 280 KB) that the client is still sending when the answer goes out.
  const body = `[${'{"site_name":'.repeat(20_000)}1${'}'.repeat(20_000)}]`
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, () =>
      request(server.url)
        .get('/api/openapi.json')
        .set('content-type', 'application/json')
        .serialize((raw: string) => raw)
        .send(body)
        .then(
          (res) => `${res.status} ${res.body?.openapi}`,
          (error: Error & { code?: string }) => `${error.code} ${error.message}`,
        ),
    ),
  )
  t.strictSame(outcomes, Array(10).fill('200 3.1.0'), 'every call got the whole document')
})
