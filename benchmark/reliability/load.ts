/**
 * Mixed load with memory sampled at the start, middle and end, and a
 * slowloris check: sockets that send their headers a byte at a time must be
 * closed by the headers deadline while normal requests keep being answered.
 */
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { autocannon, type CannonRequest } from '../lib/autocannon.js'
import { basic, send, sleep, type Child } from './common.js'

export interface LoadFigures {
  seconds: number
  requests: number
  perSecond: number
  statuses: Record<string, number>
  errors: number
  memory: { at: string; rss: number; heapUsed: number }[]
}

let counter = 0

/** One connection's cycle: create a site, read it, list, record a visit-free read, delete it. */
function cycle(): CannonRequest[] {
  return [
    {
      method: 'POST',
      path: '/api/sites/create',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req, context) => {
        context.name = `load${process.pid}x${counter++}`
        return {
          ...req,
          body: JSON.stringify({
            site_data: { site_name: context.name, original_site_url: 'https://www.example.com/' },
          }),
        }
      },
    },
    {
      method: 'GET',
      path: '/api/sites/x',
      setupRequest: (req, context) => ({ ...req, path: `/api/sites/${context.name as string}` }),
    },
    { method: 'GET', path: '/api/sites/loadsite' },
    { method: 'GET', path: '/api/sites/created' },
    { method: 'GET', path: '/api/agents' },
    {
      method: 'DELETE',
      path: '/api/sites/x',
      setupRequest: (req, context) => ({ ...req, path: `/api/sites/${context.name as string}` }),
    },
  ]
}

export async function loadPhase(child: Child, seconds: number): Promise<LoadFigures> {
  const auth = { authorization: basic('alice') }
  await send(
    `${child.url}/api/sites/create`,
    'POST',
    { ...auth, 'content-type': 'application/json' },
    JSON.stringify({ site_data: { site_name: 'loadsite', original_site_url: 'https://www.example.com/' } }),
  )
  const memory: LoadFigures['memory'] = []
  const sample = async (at: string) => memory.push({ at, ...(await child.memory()) })
  // A short warm-up, so the start sample is of a server that has served this mix before.
  await autocannon({ url: child.url, connections: 8, duration: 3, requests: cycle(), headers: auth })
  await sample('start')
  const half = Math.max(1, Math.round(seconds / 2))
  const first = await autocannon({ url: child.url, connections: 16, duration: half, requests: cycle(), headers: auth })
  await sample('middle')
  const second = await autocannon({
    url: child.url,
    connections: 16,
    duration: seconds - half,
    requests: cycle(),
    headers: auth,
  })
  await sample('end')
  const statuses: Record<string, number> = {}
  for (const run of [first, second])
    for (const [code, { count }] of Object.entries(run.statusCodeStats)) statuses[code] = (statuses[code] ?? 0) + count
  const requests = first.requests.total + second.requests.total
  return {
    seconds,
    requests,
    perSecond: requests / seconds,
    statuses,
    errors: first.errors + second.errors + first.timeouts + second.timeouts,
    memory,
  }
}

export interface SlowlorisFigures {
  sockets: number
  closedBy: number
  closedWithin: number
  answeredMeanwhile: number
  failedMeanwhile: number
}

/** Opens `sockets` connections that send a header byte every 500 ms; counts how many the server closed and when. */
export async function slowlorisPhase(child: Child, sockets: number, waitSeconds = 15): Promise<SlowlorisFigures> {
  const { port } = new URL(child.url)
  const start = Date.now()
  const closedAt: number[] = []
  const open: Socket[] = []
  for (let i = 0; i < sockets; i++) {
    const socket = connect(Number(port), '127.0.0.1')
    socket.on('error', () => {})
    // Read what the server answers (its 408), so a half-close is seen as the end it is.
    socket.resume()
    await once(socket, 'connect')
    socket.write('GET /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')
    socket.on('close', () => closedAt.push(Date.now() - start))
    open.push(socket)
  }
  const drip = setInterval(() => {
    for (const socket of open) if (socket.writable) socket.write('a')
  }, 500)
  let answered = 0
  let failed = 0
  const deadline = Date.now() + waitSeconds * 1000
  while (Date.now() < deadline && closedAt.length < sockets) {
    const res = await send(`${child.url}/api/agents`, 'GET', { authorization: basic('alice') })
    if (res.status === 200) answered++
    else failed++
    await sleep(200)
  }
  clearInterval(drip)
  for (const socket of open) socket.destroy()
  return {
    sockets,
    closedBy: closedAt.length,
    closedWithin: Math.max(0, ...closedAt) / 1000,
    answeredMeanwhile: answered,
    failedMeanwhile: failed,
  }
}
