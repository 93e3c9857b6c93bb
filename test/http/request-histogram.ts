/**
 * `http_request_duration_seconds` keeps one series per method, route and
 * status (lib/http/metrics.ts makes each series key once and looks it up
 * by route, then status and method): every combination lands in its own
 * series, and a method outside the usual seven in `OTHER`.
 */
import { Registry } from 'prom-client'
import t from 'tap'
import { instrumentsFor } from '../../lib/http/metrics.js'

/** The sample's own name (`…_count`, `…_sum`, `…_bucket`): prom-client's type leaves it out. */
const nameOf = (v: object): string => (v as { metricName?: string }).metricName ?? ''

t.test('each method, route and status is its own series, counted exactly', async (t) => {
  const registry = new Registry()
  const instruments = instrumentsFor(registry)
  await instruments.ready
  const methods = ['GET', 'POST', 'DELETE', 'PROPFIND']
  const routes = ['/api/sites/{site_name}', '/api/sites/create', '/healthz']
  const statuses = [200, 204, 404, 500]
  // A different count for every combination, so that two series merged would show.
  let expected = 0
  const counts = new Map<string, number>()
  methods.forEach((method, m) =>
    routes.forEach((route, r) =>
      statuses.forEach((status, s) => {
        const times = 1 + m + 4 * r + 12 * s
        for (let i = 0; i < times; i++) instruments.httpRequest(method, route, status, 0.003)
        const label = method === 'PROPFIND' ? 'OTHER' : method
        counts.set(`${label} ${route} ${status}`, times)
        expected += times
      }),
    ),
  )
  const family = await registry.getSingleMetric('http_request_duration_seconds')?.get()
  const seen = new Map<string, number>()
  for (const v of family?.values ?? []) {
    if (nameOf(v) !== 'http_request_duration_seconds_count') continue
    seen.set(`${v.labels.method} ${v.labels.route} ${v.labels.status_code}`, v.value)
  }
  t.same(Object.fromEntries(seen), Object.fromEntries(counts), 'one series per combination, with its own count')
  t.equal(
    [...seen.values()].reduce((a, b) => a + b, 0),
    expected,
    'no observation lost',
  )

  registry.resetMetrics()
  instruments.httpRequest('GET', '/healthz', 200, 0.003)
  const after = await registry.getSingleMetric('http_request_duration_seconds')?.get()
  const afterCounts = after?.values.filter((v) => nameOf(v) === 'http_request_duration_seconds_count')
  t.same(
    afterCounts?.map((v) => [v.labels.route, v.value]),
    [['/healthz', 1]],
    'after a reset, series start again from their first observation',
  )
})
