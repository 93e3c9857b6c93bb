/**
 * A real local HTTP server that receives webhook deliveries, as the app
 * under test would: it keeps every request (headers and raw body) and
 * answers with the statuses it is told to, or holds a request unanswered.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

/** One delivery as the receiver got it. */
export interface Received {
  path: string
  headers: IncomingHttpHeaders
  /** The raw body, as the signature covers it. */
  body: string
  /** The body parsed. */
  json: Record<string, unknown>
}

export interface Receiver {
  /** `http://127.0.0.1:PORT` */
  url: string
  received: Received[]
  /** Statuses for the next requests, in order; afterwards 200. 'hold' keeps the request unanswered. */
  answers: (number | 'hold')[]
  /** Answers every held request with 200. */
  release(): void
  /** Resolves once `count` deliveries have arrived. */
  waitFor(count: number): Promise<void>
}

/** Starts a receiver on a free loopback port, closed at teardown. */
export async function webhookReceiver(t: Test): Promise<Receiver> {
  const held: ServerResponse[] = []
  const waiters: { count: number; resolve: () => void }[] = []
  const receiver: Receiver = {
    url: '',
    received: [],
    answers: [],
    release() {
      for (const res of held.splice(0)) res.end()
    },
    waitFor(count) {
      if (receiver.received.length >= count) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ count, resolve }))
    },
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      receiver.received.push({ path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body) })
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
      const answer = receiver.answers.shift() ?? 200
      if (answer === 'hold') held.push(res)
      else res.writeHead(answer).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t.teardown(async () => {
    receiver.release()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return receiver
}
