/**
 * A stand-in for `next/server`, the little of it examples/edge/middleware.ts
 * uses, built the way Next.js answers: `next()` is a response that tells
 * Next.js to go on (`x-middleware-next`), `redirect()` an empty redirect.
 * The `next` package is not installed here; test/edge/examples.ts bundles
 * the middleware with this file in its place.
 */

/** `NextResponse`'s two constructors the example calls. */
export class NextResponse extends Response {
  /** Go on to the page; headers set on this response are added to the page's. */
  static next(): NextResponse {
    return new NextResponse(null, { headers: { 'x-middleware-next': '1' } })
  }

  /** An empty redirect (Next.js's default status is 307). */
  static override redirect(url: string | URL, status = 307): NextResponse {
    return new NextResponse(null, { status, headers: { Location: String(url) } })
  }
}

/** Next.js's request is a web `Request` with more on it. */
export type NextRequest = Request

/** What Next.js passes as the middleware's second argument. */
export interface NextFetchEvent {
  waitUntil(promise: Promise<unknown>): void
}
