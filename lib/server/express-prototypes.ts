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
  // Function constructors, whose `prototype` can be the app's object (a class's cannot), that run
  // Node's own on `this`: they are ES5 functions in Node 20-24 (hasExpressPrototypes checks).
  // Reflect.construct with this function as new.target would work for classes too, but V8 then
  // gives the objects a slow shape: 145 µs of CPU per request against 26 µs.
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

/**
 * Whether `app` is an Express app (it has the two prototypes), not some other
 * request listener, and Node's message classes can be called on `this` (not
 * `class` syntax, which a later Node might use): else the server is made as usual.
 */
export function hasExpressPrototypes(app: unknown): app is ExpressPrototypes {
  if (typeof app !== 'function') return false
  const { request, response } = app as Partial<ExpressPrototypes>
  return (
    request instanceof IncomingMessage &&
    response instanceof ServerResponse &&
    !isClassSyntax(IncomingMessage) &&
    !isClassSyntax(ServerResponse)
  )
}

function isClassSyntax(fn: unknown): boolean {
  return Function.prototype.toString.call(fn).startsWith('class')
}
