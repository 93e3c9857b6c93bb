/**
 * Next.js middleware (the project's `middleware.ts`): `decide` gives the
 * verdict, Next.js builds the answer. Needs the `next` package, which this
 * repository does not install, so tsconfig.json excludes this one file;
 * test/edge/examples.ts runs it in Vercel's edge runtime with a stand-in
 * for `next/server`.
 */
import { type NextFetchEvent, type NextRequest, NextResponse } from 'next/server'
import { createMobileRedirect } from 'mobisite/edge'

const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com' })

export function middleware(request: NextRequest, event: NextFetchEvent) {
  // With `event`, a redirect's confirmation (with `siteName` and `remote`) goes to `event.waitUntil`.
  const decision = redirect.decide(request, event)
  const response = decision.redirect
    ? NextResponse.redirect(decision.redirect.location, decision.redirect.status)
    : NextResponse.next()
  // Vary, Set-Cookie (opt-out) and Link (alternateLink) go on the redirect and the page alike.
  decision.headers.forEach((value, name) => response.headers.append(name, value))
  return response
}

// Pages only: Next.js's own files never need a verdict.
export const config = { matcher: '/((?!_next/|favicon.ico).*)' }
