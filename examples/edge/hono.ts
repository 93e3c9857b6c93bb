/**
 * A Hono app with the redirect as its first middleware. Runs wherever Hono
 * does (Workers, Deno, Bun, Node with @hono/node-server). `decide` gives the
 * verdict; Hono builds the answer, so the page's own headers stay its own.
 */
import { type Context, Hono } from 'hono'
import { createMobileRedirect } from 'mobisite/edge'

const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com' })

/** The platform's `waitUntil` where there is one (Hono throws outside Workers). */
function waitUntilOf(c: Context) {
  try {
    return c.executionCtx
  } catch {
    return undefined
  }
}

const app = new Hono()
app.use(async (c, next) => {
  const decision = redirect.decide(c.req.raw, waitUntilOf(c))
  if (decision.redirect) {
    const headers = new Headers(decision.headers)
    headers.set('Location', decision.redirect.location)
    return new Response(null, { status: decision.redirect.status, headers })
  }
  await next()
  // Vary is appended to the page's (a list either way); Set-Cookie and Link are added.
  decision.headers.forEach((value, name) => c.header(name, value, { append: true }))
})
app.get('*', (c) => c.html(`<h1>Desktop: ${c.req.path.replace(/[<&]/g, '')}</h1>`))

export default app
