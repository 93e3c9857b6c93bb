/**
 * The "Mounting" section of docs/api.md, written by hand and rendered with
 * the rest by `npm run docs`. Its Fastify block is a test:
 * test/http/fastify.ts builds the app from it as written and calls the API,
 * the dashboard and the redirect through it.
 */

/** The heading test/http/fastify.ts finds the Fastify example under. */
export const FASTIFY_HEADING = '### Fastify'

/** The section's Markdown lines. */
export const MOUNTING_SECTION: readonly string[] = [
  '## Mounting',
  '',
  "`apiRouter(engine)` is an Express router: `app.use('/api', apiRouter(engine))` in an Express app",
  '([README](../README.md#1-mount-the-api-in-your-express-app)), beside `dashboardRouter(engine)` at `/dashboard`,',
  'where SSO links point by default, and `mobileRedirect(options)` in front of the desktop pages.',
  '',
  FASTIFY_HEADING,
  '',
  'Fastify 5 serves the same routers through `@fastify/express` 4, which runs Express middleware inside Fastify:',
  '',
  '```ts',
  "import fastifyExpress from '@fastify/express'",
  "import Fastify from 'fastify'",
  "import { apiRouter, createEngine, dashboardRouter, mobileRedirect } from 'mobisite'",
  '',
  'const engine = createEngine()',
  "await engine.addMasterAccount({ user: 'acme', password: process.env.API_PASSWORD!, partner: true })",
  '',
  'const app = Fastify()',
  'await app.register(fastifyExpress) // its default hook, onRequest: before Fastify reads a body',
  "app.use('/api', apiRouter(engine))",
  "app.use('/dashboard', dashboardRouter(engine))",
  "app.use(mobileRedirect({ mobileUrl: 'https://m.example.com' })) // after the routers: desktop pages only",
  "app.get('/', async (_request, reply) => reply.type('text/html').send('<h1>The desktop site</h1>'))",
  'await app.listen({ port: 3000 })',
  '```',
  '',
  "- **Bodies.** `@fastify/express` runs the Express middleware in Fastify's `onRequest` hook (its default",
  '  `expressHook`), before Fastify parses a body, so `apiRouter` reads each body itself: its limit (`bodyLimit`,',
  '  1 MiB by default: 413), its strict JSON and its `{"error_code", "message"}` errors hold, and no Fastify',
  "  content-type parser needs removing (Fastify's own `bodyLimit` never sees these requests). Keep that",
  "  default: with `expressHook: 'preHandler'` Fastify parses the body first and answers a malformed one with",
  "  its own error (`FST_ERR_CTP_INVALID_JSON_BODY`), not the API's.",
  '- **Order.** The routers answer every path under their prefix (404 `NotFound` for an unknown one), so',
  '  `mobileRedirect` registered after them sees only the rest: the desktop pages, here a Fastify route that',
  '  desktop browsers reach with `Vary` set, and a phone opening its dashboard is not sent to the mobile site.',
  '- **Everything else** is as in Express: the same authentication, statuses and bodies, SSO links (their',
  "  origin chosen as [dashboard.md](dashboard.md) says), the dashboard's session cookie and pages.",
  '  `test/http/fastify.ts` builds this app as written and runs the basic calls, a dashboard sign-in and the',
  '  redirect through it.',
  '',
]
