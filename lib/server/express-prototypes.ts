/**
 * Node request and response classes whose objects are born with an Express
 * app's prototypes (`app.request`, `app.response`), for `http.createServer`'s
 * `IncomingMessage` and `ServerResponse` options.
 *
 * Express gives every request and response its app's prototype with
 * `Object.setPrototypeOf` (Express 5 in `app.handle`, Express 4 in its init
 * middleware). Changing the prototype of a live object makes V8 give it a new
 * hidden class, and every property access on it afterwards misses the inline
 * caches: about two thirds of bare Express's CPU per request here (80 µs
 * against 26 µs for the same app; docs/PERFORMANCE.md). When the object
 * already has that prototype, `setPrototypeOf` returns at once and nothing
 * changes, so Express runs as it always does, only without that cost. A
 * sub-app mounted inside still sets its own prototypes for its requests, as
 * Express does, and restores these after.
 */
import { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** What Express's `express()` has: the prototypes it gives requests and responses. */
export interface ExpressPrototypes {
  request: object
  response: object
}

/** The two classes to pass to `http.createServer` (or `https.createServer`) for `app`. */
export function prototypedMessages(app: ExpressPrototypes): {
  IncomingMessage: typeof IncomingMessage
  ServerResponse: typeof ServerResponse
} {
  // Function constructors: Node's own classes are ES5-style functions that can be called on `this`,
  // and a function's `prototype` can be the app's object, which a class's cannot be replaced with.
  const initRequest = IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void
  const initResponse = ServerResponse as unknown as (
    this: ServerResponse,
    req: IncomingMessage,
    options?: object,
  ) => void
  function Request(this: IncomingMessage, socket: Socket): void {
    initRequest.call(this, socket)
  }
  Request.prototype = app.request
  function Response(this: ServerResponse, req: IncomingMessage, options?: object): void {
    initResponse.call(this, req, options)
  }
  Response.prototype = app.response
  return {
    IncomingMessage: Request as unknown as typeof IncomingMessage,
    ServerResponse: Response as unknown as typeof ServerResponse,
  }
}

/** Whether `app` is an Express app (it has the two prototypes), not some other request listener. */
export function hasExpressPrototypes(app: unknown): app is ExpressPrototypes {
  if (typeof app !== 'function') return false
  const { request, response } = app as Partial<ExpressPrototypes>
  return request instanceof IncomingMessage && response instanceof ServerResponse
}
