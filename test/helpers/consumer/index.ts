// A strict ESM TypeScript consumer of the packed mobisite (compiled by test/packaging/package.ts).
import express from 'express'
import { type Engine, MemoryStore, ServiceError, type Site, apiRouter, createEngine, mobileRedirect } from 'mobisite'
import { createMobileRedirect, type EdgeDecision } from 'mobisite/edge'
import { storeConformance, type Tap } from 'mobisite/testing'

const engine: Engine = createEngine({ store: new MemoryStore() })
const app = express()
app.use(mobileRedirect({ mobileUrl: 'https://m.example.com' }))
app.use('/api', apiRouter(engine))

export async function siteName(name: string): Promise<string> {
  const site: Site = await engine.as('u').getSite(name)
  return site.site_name
}

export function codeOf(error: unknown): string | undefined {
  return error instanceof ServiceError ? error.error_code : undefined
}

export const suite = (t: Tap): Promise<unknown> => storeConformance(t, 'MemoryStore', () => new MemoryStore())

const edgeRedirect = createMobileRedirect({ mobileUrl: (url) => `https://m.example.com${url.pathname}` })
export const edgeDecision = (request: Request): EdgeDecision => edgeRedirect.decide(request)
export const edgeAnswer = (request: Request): Promise<Response> =>
  edgeRedirect.handle(request, () => new Response('desktop'), { waitUntil: () => undefined })
