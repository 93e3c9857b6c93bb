/**
 * The mobile site's own server records its traffic with analyticsCollector;
 * the owner reads it back through Get Site Analytics.
 *
 *   npx tsx examples/collector.ts
 *   open http://127.0.0.1:3000/               (each load sends a beacon; links send activities)
 *   curl -u demo:demo-password 'http://127.0.0.1:3000/api/analytics/site/demoshop?dimension=system'
 *
 * Behind Cloudflare, CloudFront, Vercel or App Engine the country and region
 * come from the CDN's headers; here `?country=` on the page stands in for them.
 */
import express from 'express'
import { analyticsCollector, apiRouter, createEngine } from 'mobisite'

// In production the engine would share a RedisStore with the API servers.
const engine = createEngine()
await engine.addMasterAccount({ user: 'demo', password: 'demo-password' })
await engine
  .as('demo')
  .createSite({ site_data: { site_name: 'demoshop', original_site_url: 'https://www.example.com' } })

const app = express()
app.set('trust proxy', true) // req.secure follows X-Forwarded-Proto: the visitor cookie gets Secure behind HTTPS

// One request records one event: a visit (default, `pv` pages) or an activity (`e=click_to_call`, ...).
app.use(
  '/_ms/collect',
  analyticsCollector(engine, {
    siteName: 'demoshop',
    // A resolver of your own: a GeoIP lookup, or (here) a query parameter of the page that sent the beacon.
    geo: (req) => {
      const page = new URL(req.get('referer') ?? 'http://x/')
      return {
        country: page.searchParams.get('country') ?? undefined,
        region: page.searchParams.get('region') ?? undefined,
      }
    },
    onError: (error) => console.warn('analytics:', error),
  }),
)

app.get('/', (_req, res) => {
  res.type('html').send(`<!doctype html>
<meta name="viewport" content="width=device-width">
<h1>Demo shop</h1>
<p><a href="tel:+15550100" data-activity="click_to_call">Call us</a> ·
   <a href="https://maps.example.com/?q=shop" data-activity="click_to_map">Find us</a> ·
   <a href="mailto:shop@example.com" data-activity="click_to_email">Mail us</a></p>
<form data-activity="form_submit" onsubmit="event.preventDefault()"><input name="q"><button>Send</button></form>
<script>
  // One visit per browser session: the session's first page sends it. (Sending on every page load
  // instead records each page as a visit of one page.)
  if (!sessionStorage.getItem('ms-visit')) {
    sessionStorage.setItem('ms-visit', '1')
    navigator.sendBeacon('/_ms/collect')
  }
  document.addEventListener('click', (e) => {
    const kind = e.target.closest('[data-activity]')?.dataset.activity
    if (kind && kind !== 'form_submit') navigator.sendBeacon('/_ms/collect?e=' + kind)
  })
  document.addEventListener('submit', () => navigator.sendBeacon('/_ms/collect?e=form_submit'))
</script>`)
})

// The owner's side: the service API, here on the same server for the demo.
app.use('/api', apiRouter(engine))

const port = Number(process.env.PORT ?? 3000)
const server = app.listen(port, '127.0.0.1', () => {
  console.log(
    `mobile site on http://127.0.0.1:${port}/, analytics API on http://127.0.0.1:${port}/api (demo / demo-password)`,
  )
})
process.on('SIGINT', () => server.close(() => void engine.close()))
