/**
 * A server for Deno or Bun, the redirect in front of the site's own handler.
 * Both serve a module's `export default { fetch }`:
 *   deno serve --allow-net examples/edge/server.ts   (import from "npm:mobisite/edge" without a package.json)
 *   bun run examples/edge/server.ts
 * The same `fetch` fits `Deno.serve(handler.fetch)` and `Bun.serve(handler)`.
 * It names no Deno or Bun global, so no runtime's types are needed.
 */
import { createMobileRedirect } from 'mobisite/edge'

const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com', alternateLink: true })

/** The desktop site itself. */
function site(request: Request): Response {
  const { pathname } = new URL(request.url)
  return new Response(`<!doctype html><title>Desktop</title><h1>${pathname.replace(/[<&]/g, '')}</h1>`, {
    headers: { 'Content-Type': 'text/html; charset=utf-8' },
  })
}

const handler = {
  fetch: (request: Request): Promise<Response> => redirect.handle(request, () => site(request)),
}
export default handler
