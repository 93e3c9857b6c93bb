/**
 * A running server (startServer) with one site to send visits to: the
 * engine behind the collector and redirect-confirmation tests.
 */
import type { Test } from 'tap'
import { createEngine } from '../../lib/engine/index.js'
import { type ServerOptions, startServer } from '../../lib/server/index.js'

/**
 * startServer on a new engine whose master alice (password `pw`) has one
 * site (https://shop.example.com), both closed at teardown. With `start`,
 * the engine's clock stands at that time until the test moves `clock.now`;
 * without, it is the real clock.
 */
export async function serverWithSite(t: Test, start?: string, options: Omit<ServerOptions, 'engine'> = {}) {
  const clock = { now: start === undefined ? Date.now() : Date.parse(start) }
  const engine = createEngine(start === undefined ? {} : { now: () => new Date(clock.now) })
  await engine.addMasterAccount({ user: 'alice', password: 'pw' })
  const { site_name } = await engine
    .as('alice')
    .createSite({ site_data: { original_site_url: 'https://shop.example.com' } })
  const server = await startServer({ ...options, engine })
  t.teardown(async () => {
    await server.close()
    await engine.close()
  })
  return { engine, server, site_name, clock }
}
