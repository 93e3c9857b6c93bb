/**
 * A desktop site that sends phone visitors to its mobile site with one line.
 *
 *   npx tsx examples/desktop-site.ts
 *   curl -i -A 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1' \
 *        'http://127.0.0.1:3001/products?id=7'
 *     -> 302, Location: https://m.example.com/products?id=7
 *   curl -i 'http://127.0.0.1:3001/products?id=7'             -> 200, the desktop page
 *   curl -i -H 'Sec-CH-UA-Mobile: ?1' http://127.0.0.1:3001/   -> 302 (Client Hints)
 *
 * Environment:
 *   PORT        default 3001
 *   MOBILE_URL  the mobile site, default https://m.example.com
 *   MOBISITE_API, MOBISITE_USER, MOBISITE_PASSWORD
 *               take the agents from a running mobisite service (its GET /agents,
 *               refreshed every 5 minutes) instead of the built-in DEFAULT_AGENTS,
 *               e.g. MOBISITE_API=http://127.0.0.1:3000/api with examples/express-app.ts.
 */
import express from 'express'
import { mobileRedirect } from 'mobisite'

const mobileUrl = process.env.MOBILE_URL ?? 'https://m.example.com'
const api = process.env.MOBISITE_API
const remote =
  api === undefined
    ? undefined
    : { baseUrl: api, user: process.env.MOBISITE_USER ?? '', password: process.env.MOBISITE_PASSWORD ?? '' }

const app = express()

// The one line. Everything else here is the desktop site itself.
const redirect = mobileRedirect({
  mobileUrl,
  remote,
  onError: (err) => console.warn(`[mobileRedirect] ${err.message}`),
})
app.use(redirect)

const page = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`

app.get('/', (req, res) => {
  // Phones only get here when they opted out (or sent Sec-CH-UA-Mobile: ?0).
  const note = req.mobisite?.optedOut
    ? `<p>You chose the desktop site. <a href="/?no_redirect=false">Back to the mobile site</a></p>`
    : `<p>Phones are sent to <a href="${mobileUrl}">${mobileUrl}</a>; the mobile site links back with <code>?no_redirect=true</code>.</p>`
  res.send(page('Desktop site', `${note}<p><a href="/products?id=7">A product</a></p>`))
})
app.get('/products', (req, res) => {
  res.send(page(`Product ${String(req.query.id ?? '?')}`, '<p>Full-size photos, comparison tables, the works.</p>'))
})
// Never redirected: /api and static assets match the default skip pattern.
app.get('/api/status', (_req, res) => {
  res.json({ ok: true, agents: redirect.matcher.mode })
})
app.get('/style.css', (_req, res) => {
  res.type('css').send('body { font-family: sans-serif }')
})

const port = Number(process.env.PORT ?? 3001)
const server = app.listen(port, '127.0.0.1', () => {
  console.log(
    `desktop site on http://127.0.0.1:${port}; phones go to ${mobileUrl}${remote ? ` (agents from ${api})` : ''}`,
  )
})
process.on('SIGINT', () => {
  redirect.close()
  server.close()
})
