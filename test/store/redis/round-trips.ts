/**
 * Redis round trips per API call, counted (a count, not a timing): every
 * command the RedisStore's client sends is one round trip, since a call never
 * sends a command before the reply to its previous one (commands of separate
 * calls issued in one turn of the event loop share a socket write, checked
 * at the end, but each waits for its own reply). A read is one round trip and so is each atomic rule;
 * authenticated requests add none while the verified-credential cache holds
 * the caller. Calls made of several steps (a rule, then a read) send one per
 * step, and this file fixes how many.
 */
import type { Server } from 'node:http'
import express from 'express'
import type { Redis } from 'ioredis'
import request from 'supertest'
import t from 'tap'
import { apiRouter, createEngine } from '../../../lib/index.js'
import { RedisStore } from '../../../lib/redis.js'
import { OwnRedis, REDIS_URL, deleteUnder, freePort, randomPrefix, redisOrSkip } from '../../helpers/redis.js'

const admin = await redisOrSkip(t, 'Redis round-trip counts')

/** The names of the commands the store's client sends from now on; empty it to start a count. */
function sentCommands(store: RedisStore): string[] {
  const sent: string[] = []
  const client = store.client as unknown as { sendCommand: (command: { name: string }, ...rest: unknown[]) => unknown }
  const send = client.sendCommand.bind(client)
  client.sendCommand = (command, ...rest) => {
    sent.push(command.name)
    return send(command, ...rest)
  }
  return sent
}
if (admin)
  void t.test('one round trip per read and per atomic rule, over HTTP and in-process', async (t) => {
    const prefix = randomPrefix('trips')
    const store = new RedisStore({ url: REDIS_URL!, prefix })
    const sent = sentCommands(store)
    const engine = createEngine({ store })
    const app = express().use('/api', apiRouter(engine))
    const server: Server = app.listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => server.once('listening', resolve))
    t.teardown(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await engine.close()
      await deleteUnder(admin, prefix)
    })
    await engine.addMasterAccount({ user: 'trips', password: 'trips-secret', partner: true })
    const http = request(server)
    const call = (method: 'get' | 'post' | 'delete', path: string, body?: object) => {
      const req = http[method](`/api${path}`).auth('trips', 'trips-secret')
      return body === undefined ? req : req.send(body)
    }
    // Warm: the credential cache now holds the caller, and every script is loaded.
    await call('get', '/sites/nothing-here')
    await call('post', '/sites/create', {
      site_data: { site_name: 'warmsite', original_site_url: 'https://w.example.com/' },
      publish_now: true,
    })
    await call('post', '/sites/recreate/warmsite', {})
    await call('get', '/analytics/site/warmsite?from=2025-01-01&to=2025-01-02')
    await call('get', '/analytics/sites/withmosttraffic?from=2025-01-01&to=2025-01-02')
    await call('post', '/accounts/create', {
      account_name: 'warmacct',
      email: 'w@example.com',
      first_name: 'W',
      last_name: 'A',
    })
    await call('post', '/accounts/grant-access/warmacct/sites/warmsite')
    await call('get', '/accounts/warmacct')
    await call('delete', '/sites/warmsite')

    /** [label, method, path, body, expected status, expected round trips, why] */
    const cases: [string, 'get' | 'post' | 'delete', string, object | undefined, number, number][] = [
      [
        'Create Site',
        'post',
        '/sites/create',
        { site_data: { site_name: 'tripsite', original_site_url: 'https://a.example.com/', external_uid: 'trip-uid' } },
        200,
        1,
      ],
      [
        'Create Site, taken name',
        'post',
        '/sites/create',
        { site_data: { site_name: 'tripsite', original_site_url: 'https://a.example.com/' } },
        400,
        1,
      ],
      [
        'Create Site, generated name',
        'post',
        '/sites/create',
        { site_data: { original_site_url: 'https://gen.example.com/' } },
        200,
        1,
      ],
      ['Retrieve Site', 'get', '/sites/tripsite', undefined, 200, 1],
      ['Retrieve Site, missing', 'get', '/sites/nosuchsite', undefined, 400, 1],
      ['Retrieve Site by External ID', 'get', '/sites/byexternal/trip-uid', undefined, 200, 1],
      [
        'Retrieve Multiple Sites',
        'post',
        '/sites/get-many',
        [{ site_name: 'tripsite' }, { site_name: 'tripsite' }],
        200,
        1,
      ],
      ['Retrieve Sites created', 'get', '/sites/created', undefined, 200, 1],
      ['Retrieve Sites modified', 'get', '/sites/modified', undefined, 200, 1],
      ['Update Site', 'post', '/sites/update/tripsite', { site_domain: 'm.example.com' }, 204, 1],
      ['Publish Site (first: the charge)', 'post', '/sites/publish/tripsite', undefined, 204, 1],
      ['Publish Site again', 'post', '/sites/publish/tripsite', undefined, 204, 1],
      ['Unpublish Site', 'post', '/sites/unpublish/tripsite', undefined, 204, 1],
      ['Reset Runtime Cache', 'post', '/sites/resetcache/tripsite', undefined, 204, 1],
      [
        'Create Account',
        'post',
        '/accounts/create',
        { account_name: 'tripacct', email: 't@example.com', first_name: 'T', last_name: 'R' },
        204,
        1,
      ],
      ['Retrieve Account', 'get', '/accounts/tripacct', undefined, 200, 1],
      ['Update Account', 'post', '/accounts/update/tripacct', { first_name: 'U' }, 204, 1],
      ['Grant access', 'post', '/accounts/grant-access/tripacct/sites/tripsite', undefined, 204, 1],
      ['Revoke access', 'post', '/accounts/revoke-access/tripacct/sites/tripsite', undefined, 204, 1],
      ['Delete Account', 'delete', '/account/tripacct', undefined, 204, 1],
      ['GET /agents', 'get', '/agents', undefined, 200, 0],
      ['Delete Site', 'delete', '/sites/tripsite', undefined, 204, 1],
    ]
    for (const [label, method, path, body, status, trips] of cases) {
      sent.length = 0
      const res = await call(method, path, body)
      t.equal(res.status, status, `${label}: ${status}`)
      t.equal(sent.length, trips, `${label}: ${trips} round trip${trips === 1 ? '' : 's'} (${sent.join(', ')})`)
    }

    // Calls made of more than one step: each step is one round trip.
    const steps: [string, 'get' | 'post' | 'delete', string, object | undefined, number, number, string][] = [
      [
        'Create Site with publish_now',
        'post',
        '/sites/create',
        { site_data: { site_name: 'tripsite2', original_site_url: 'https://a.example.com/' }, publish_now: true },
        200,
        2,
        'reserve the name; after the build, the first-publish charge',
      ],
      [
        'Recreate Site',
        'post',
        '/sites/recreate/tripsite2',
        {},
        204,
        2,
        'read the creation properties; restore them if the site is still that one',
      ],
      [
        'Get Site Analytics',
        'get',
        '/analytics/site/tripsite2?from=2025-01-01&to=2025-01-02',
        undefined,
        200,
        3,
        'the daily limit; the site (tenancy); the period',
      ],
      [
        'Get Sites with Most Traffic',
        'get',
        '/analytics/sites/withmosttraffic?from=2025-01-01&to=2025-01-02',
        undefined,
        200,
        2,
        'the daily limit; the ranking',
      ],
    ]
    for (const [label, method, path, body, status, trips, why] of steps) {
      sent.length = 0
      const res = await call(method, path, body)
      t.equal(res.status, status, `${label}: ${status}`)
      t.equal(sent.length, trips, `${label}: ${trips} round trips: ${why} (${sent.join(', ')})`)
    }

    // In-process recording: one round trip that finds the site and records.
    for (const [label, record] of [
      ['recordVisit', () => engine.recordVisit({ site_name: 'tripsite2', visitor_id: 'v1' })],
      ['recordActivity', () => engine.recordActivity({ site_name: 'tripsite2', kind: 'click_to_call' })],
    ] as const) {
      sent.length = 0
      await record()
      t.equal(sent.length, 1, `${label}: 1 round trip (${sent.join(', ')})`)
    }
    // A turn's recordings over several sites (one missing) are one batch: on a
    // single Redis one script, rankings included (a cluster splits it by site).
    sent.length = 0
    await Promise.all([
      engine.recordVisit({ site_name: 'tripsite2', visitor_id: 'v2' }),
      engine.recordVisit({ site_name: 'nosuch-site', visitor_id: 'v2' }).catch(() => {}),
      engine.recordActivity({ site_name: 'tripsite2', kind: 'form_submit' }),
      engine.recordVisit({ site_name: 'tripsite', visitor_id: 'v3' }).catch(() => {}),
    ])
    t.equal(sent.length, 1, `a turn's recordings over several sites: 1 round trip (${sent.join(', ')})`)

    // Concurrent calls issued in one turn leave in one socket write (a
    // syscall saved per command); each still has its own command and reply.
    const socket = (store.client as Redis).stream as unknown as Record<
      '_write' | '_writev',
      (...args: unknown[]) => unknown
    >
    let writes = 0
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method].bind(socket)
      socket[method] = (...args) => {
        writes++
        return original(...args)
      }
    }
    sent.length = 0
    const sites = await Promise.all([
      store.getSite('tripsite2'),
      store.getSite('nosuchsite'),
      store.getSites(['tripsite2']),
      store.listSites('trips', 'created', 0, Number.MAX_SAFE_INTEGER),
    ])
    t.same(
      sites.map((s) => (Array.isArray(s) ? s.length : s?.site_name)),
      ['tripsite2', undefined, 1, 2],
      'each call gets its own answer',
    )
    t.equal(sent.length, 4, `4 concurrent calls: 4 commands (${sent.join(', ')})`)
    t.equal(writes, 1, '4 concurrent calls: one socket write')
  })

if (admin)
  void t.test(
    'every script is loaded on connecting and again after a Redis restart: a first call is one round trip',
    async (t) => {
      // An own server: its script cache starts empty and is emptied again by the restart.
      const redis = new OwnRedis(await freePort())
      await redis.start()
      const store = new RedisStore({ url: redis.url, prefix: randomPrefix('scripts') })
      t.teardown(async () => {
        await store.close()
        await redis.stop()
      })
      const sent = sentCommands(store)
      /** Waits until the store answers (a plain read, not a script). */
      const connected = async (): Promise<void> => {
        for (let i = 0; i < 200; i++) {
          try {
            await store.getMaster('nobody')
            return
          } catch {
            await new Promise((r) => setTimeout(r, 50))
          }
        }
        throw new Error('the store did not reconnect')
      }
      const firstCalls: [string, () => Promise<unknown>][] = [
        ['updateAccount', () => store.updateAccount('owner', 'nobody', { first_name: 'X' })],
        ['deleteAccount', () => store.deleteAccount('owner', 'nobody')],
        ['grantAccess', () => store.grantAccess('owner', 'nobody', 'nosite')],
        ['incrementWithinLimit', () => store.incrementWithinLimit('calls', 300, Date.now() + 60_000)],
        ['getBilling', () => store.getBilling('owner')],
      ]
      for (const when of ['after connecting', 'after a restart']) {
        if (when === 'after a restart') {
          await redis.stop()
          await redis.start()
        }
        await connected()
        for (const [label, call] of firstCalls) {
          sent.length = 0
          await call()
          t.same(sent, ['evalsha'], `${when}, ${label}: one EVALSHA, no NOSCRIPT fallback`)
        }
      }
    },
  )
