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
  return {
    IncomingMessage: sizedConstructor('Request', IncomingMessage, app.request),
    ServerResponse: sizedConstructor('Response', ServerResponse, app.response),
  }
}

/**
 * How many `this.x =` assignments each constructor carries in a branch that
 * never runs. V8 gives the objects a function constructs as many in-object
 * slots as it counts such assignments in the function's body. With none,
 * Node's own init (some 35 properties, many under symbol keys) overflows the
 * few slots a bare wrapper gets, and V8 turns every request and response into
 * a dictionary: slow properties, and Express's every read of them misses the
 * inline caches. With these, they stay fast from birth to the end of the
 * answer (test/server/express-prototypes.ts), and a request allocates about a
 * third less (22 KB down to 15 KB for GET /api/sites/{name}, sampled).
 * Slack tracking gives back the slots no object uses.
 */
const SIZING_HINTS = 32

/**
 * `function name(a, b) { init.call(this, a, b) }` with `prototype`, plus the
 * never-run hints above. Made from source text because only the source's
 * `this.x =` count sizes the objects, and a compiler must not drop the branch.
 * Where Node forbids code from strings (`--disallow-code-generation-from-strings`),
 * the same wrapper without the hints: correct, only slower.
 */
function sizedConstructor(name: string, init: object, prototype: object): never {
  const hints = Array.from({ length: SIZING_HINTS }, (_, i) => `this.sizingHint${i} = undefined;`).join(' ')
  let made: { prototype: object }
  try {
    const make = new Function(
      'init',
      'never',
      `return function ${name}(a, b) { init.call(this, a, b); if (never.runs) { ${hints} } }`,
    ) as (init: object, never: { runs: boolean }) => { prototype: object }
    made = make(init, { runs: false })
  } catch {
    const call = init as (this: unknown, a: unknown, b: unknown) => void
    made = function unsized(this: unknown, a: unknown, b: unknown): void {
      call.call(this, a, b)
    } as unknown as { prototype: object }
  }
  made.prototype = prototype
  return made as never
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
