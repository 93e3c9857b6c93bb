/**
 * A Cloudflare Worker in front of a desktop site: phones' page navigations go
 * to the mobile site, everything else to the origin. `npx wrangler dev`
 * (wrangler.toml beside this file), then:
 *   curl -i -A 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148' http://127.0.0.1:8787/shop
 *     -> 302, Location: https://m.example.com/shop
 * With MOBISITE_API (and the secrets MOBISITE_USER, MOBISITE_PASSWORD) the
 * agents come from that mobisite service, and with MOBISITE_SITE its
 * redirects are confirmed there; both run in `ctx.waitUntil`, after the answer.
 */
import { createMobileRedirect, type EdgeMobileRedirect, type WaitUntil } from 'mobisite/edge'

/** The variables of wrangler.toml and the secrets. */
interface Env {
  MOBILE_URL: string
  MOBISITE_API?: string
  MOBISITE_USER?: string
  MOBISITE_PASSWORD?: string
  MOBISITE_SITE?: string
}

// One per isolate, made on the first request: `env` arrives with it.
let redirect: EdgeMobileRedirect | undefined

function redirectFor(env: Env): EdgeMobileRedirect {
  const remote = env.MOBISITE_API
    ? { baseUrl: env.MOBISITE_API, user: env.MOBISITE_USER ?? '', password: env.MOBISITE_PASSWORD ?? '' }
    : undefined
  return createMobileRedirect({ mobileUrl: env.MOBILE_URL, remote, siteName: remote && env.MOBISITE_SITE })
}

export default {
  fetch(request: Request, env: Env, ctx: WaitUntil): Promise<Response> {
    redirect ??= redirectFor(env)
    // `fetch(request)` is the origin: the desktop site this Worker's route covers.
    return redirect.handle(request, () => fetch(request), ctx)
  },
}
