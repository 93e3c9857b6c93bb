/**
 * The test double's new paths under a flood from one client, with another
 * client's latency and the server's heap watched:
 *
 * 1. webhooks: a receiver that never answers, and 20,000 site events in a
 *    burst; the delivery queue must stay at its bound (1,000 pending) and
 *    the heap with it, and another master's reads must not slow down;
 * 2. the rate limit (10 per second): one master floods `/api` for a few
 *    seconds; it gets 429s, another master's reads keep their latency.
 *
 *   npx tsx benchmark/test-double.ts      (TD_EVENTS, TD_FLOOD_SECONDS)
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createEngine, startServer } from '../lib/index.js'
import { autocannon } from './lib/autocannon.js'
import { figure } from './lib/report.js'

setFlagsFromString('--expose_gc')
const gc = runInNewContext('gc') as () => void
const heapMB = (): number => {
  gc()
  gc()
  return process.memoryUsage().heapUsed / 1024 / 1024
}

const EVENTS = Number(process.env.TD_EVENTS ?? 20_000)
const FLOOD_SECONDS = Number(process.env.TD_FLOOD_SECONDS ?? 5)
const basic = (user: string) => `Basic ${Buffer.from(`${user}:${user}-pw`).toString('base64')}`

const engine = createEngine()
await engine.addMasterAccount({ user: 'flood', password: 'flood-pw' })
await engine.addMasterAccount({ user: 'calm', password: 'calm-pw' })
const server = await startServer({ engine, admin: true })
await engine.as('flood').createSite({ site_data: { site_name: 'floodsite', original_site_url: 'https://f.example' } })
await engine.as('calm').createSite({ site_data: { site_name: 'calmsite', original_site_url: 'https://c.example' } })

let calmRefused = 0
/** p50 and p99 of `count` sequential GETs by the calm master, in ms. */
async function calmLatency(count: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    const res = await fetch(`${server.url}/api/sites/calmsite`, { headers: { authorization: basic('calm') } })
    await res.arrayBuffer()
    if (res.status !== 200) calmRefused++
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return { p50: times[Math.floor(count / 2)]!, p99: times[Math.floor(count * 0.99)]! }
}

// 1. Webhooks to a receiver that holds every delivery.
const held: ServerResponse[] = []
const receiver = createServer((req, res) => {
  req.resume()
  held.push(res)
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
server.controls.addWebhook({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, retries: 0 })
await calmLatency(200)
const before = await calmLatency(500)
const heapBefore = heapMB()
const flood = engine.as('flood')
let maxPending = 0
const during = calmLatency(500)
for (let i = 0; i < EVENTS; i += 2) {
  await flood.publishSite('floodsite')
  await flood.unpublishSite('floodsite')
  if (i % 500 === 0) maxPending = Math.max(maxPending, server.controls.webhookDeliveries().pending)
}
const latency = await during
const { deliveries, pending, dropped } = server.controls.webhookDeliveries()
const heapAfter = heapMB()
console.log(
  `webhooks: ${EVENTS} events to a receiver that never answers: at most ${maxPending} pending (now ${pending}), ` +
    `${dropped} dropped (counted), ${deliveries.length} attempts in the log; heap ${heapBefore.toFixed(1)} → ${heapAfter.toFixed(1)} MB; ` +
    `another master's GET p50/p99 ${before.p50.toFixed(2)}/${before.p99.toFixed(2)} ms → ${latency.p50.toFixed(2)}/${latency.p99.toFixed(2)} ms`,
)
figure({
  group: 'test double',
  name: `webhooks: pending deliveries after ${EVENTS} events to a receiver that never answers`,
  value: maxPending,
  unit: 'deliveries',
  target: '<= 1000',
  targetOf: 'value',
})
figure({
  group: 'test double',
  name: `webhooks: heap growth over ${EVENTS} events (after GC)`,
  value: Math.round((heapAfter - heapBefore) * 10) / 10,
  unit: 'MB',
  note: 'bounded queue (1,000) and log (1,000 attempts)',
})
figure({
  group: 'test double',
  name: "webhooks: another master's GET p99 during the burst",
  value: Math.round(latency.p99 * 100) / 100,
  unit: 'ms',
  anchor: 'before the burst',
  anchorValue: Math.round(before.p99 * 100) / 100,
  ratio: Math.round((latency.p99 / before.p99) * 100) / 100,
})
server.controls.abandonWebhookDeliveries()
for (const res of held.splice(0)) res.end()
receiver.closeAllConnections()
receiver.close()

// 2. The rate limit under a flood from one master.
server.controls.setRateLimit({ perSecond: 10 })
calmRefused = 0
const heapLimitBefore = heapMB()
const [result, limited] = await Promise.all([
  autocannon({
    url: `${server.url}/api/sites/floodsite`,
    connections: 10,
    duration: FLOOD_SECONDS,
    headers: { authorization: basic('flood') },
  }),
  (async () => {
    // Five calls a second: well under the calm master's own limit.
    const samples: { p50: number; p99: number }[] = []
    const end = performance.now() + FLOOD_SECONDS * 1000 - 1000
    while (performance.now() < end) {
      const round = performance.now()
      samples.push(await calmLatency(5))
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, round + 1000 - performance.now())))
    }
    return samples
  })(),
])
const heapLimitAfter = heapMB()
const ok = result.statusCodeStats['200']?.count ?? 0
const refused = result.statusCodeStats['429']?.count ?? 0
const calmWorst = Math.max(...limited.map((s) => s.p99))
console.log(
  `rate limit 10/s: ${result.requests.total} calls in ${FLOOD_SECONDS} s from one master: ${ok} × 200, ${refused} × 429; ` +
    `another master (5 calls a second): worst p99 ${calmWorst.toFixed(2)} ms, ${calmRefused} refused; heap ${heapLimitBefore.toFixed(1)} → ${heapLimitAfter.toFixed(1)} MB`,
)
figure({
  group: 'test double',
  name: `rate limit 10/s: calls admitted of a ${FLOOD_SECONDS} s flood from one master`,
  value: ok,
  unit: 'calls',
  target: `<= ${10 * (FLOOD_SECONDS + 1)}`,
  targetOf: 'value',
  note: `${refused} refused with 429`,
})
await server.close()
await engine.close()
