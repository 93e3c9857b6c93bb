/**
 * The one check of every HTTP response the test suite receives from the API
 * against the OpenAPI document the router serves: the status is one the
 * operation documents, the body (JSON or none) is valid against the schema of
 * that status, and the headers it documents as required are there and valid.
 * A path nothing serves must be the documented 404, a known path with another
 * method the documented 405 (or 204 for OPTIONS) with `Allow`.
 *
 * Shared HTTP helpers route every response through {@link assertConforms}:
 * `setup()`'s clients (test/helpers/api.ts), {@link checkedRequest} (supertest),
 * {@link checkedFetch}, the Redis helpers' `request` and the fuzzer.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import request from 'supertest'
import { openApiDocument } from '../../lib/http/openapi.js'
import { isEmail, isFqdn, isHttpUrl } from '../../lib/schema/formats.js'

interface ResponseDoc {
  description: string
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: object }>
  content?: Record<string, { schema: unknown }>
}
interface OperationDoc {
  operationId: string
  responses: Record<string, ResponseDoc | { $ref: string }>
}
interface Doc {
  paths: Record<string, Record<string, OperationDoc>>
  components: {
    schemas: Record<string, unknown>
    headers: Record<string, { required?: boolean; schema: object }>
    responses: Record<string, ResponseDoc>
  }
}

/** The document as a server with the test-double controls serves it: the API's paths and `/__admin`'s. */
export const DOCUMENT = openApiDocument('/api', { admin: true }) as Doc

const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true })
ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl })
ajv.addFormat('fqdn', { type: 'string', validate: isFqdn })
ajv.addFormat('email', { type: 'string', validate: isEmail })
for (const [name, schema] of Object.entries(DOCUMENT.components.schemas)) {
  ajv.addSchema(rebase(schema) as object, `mobisite:${name}`)
}

/** `#/components/schemas/X` → the id the schema was added under. */
function rebase(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema
  if (Array.isArray(schema)) return schema.map(rebase)
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === '$ref' && typeof value === 'string'
        ? [key, value.replace('#/components/schemas/', 'mobisite:')]
        : [key, rebase(value)],
    ),
  )
}

const validators = new Map<unknown, ValidateFunction>()
function validatorOf(schema: unknown): ValidateFunction {
  let validate = validators.get(schema)
  if (!validate) validators.set(schema, (validate = ajv.compile(rebase(schema) as object)))
  return validate
}

/** A documented response object, its `$ref` resolved. */
function resolve(response: ResponseDoc | { $ref: string }): ResponseDoc {
  if ('$ref' in response) return DOCUMENT.components.responses[response.$ref.split('/').pop()!]!
  return response
}

interface Template {
  path: string
  pattern: RegExp
  operations: Record<string, OperationDoc>
}

/** Paths in document order (the route table's: static before parameterised), matched as the router does. */
const TEMPLATES: Template[] = Object.entries(DOCUMENT.paths).map(([path, operations]) => ({
  path,
  pattern: new RegExp(`^${path.replace(/\{[a-z_]+\}/g, '([^/]+)')}/?$`),
  operations,
}))

/** One request and its response, as they went over the wire. */
export interface Exchange {
  method: string
  /** The path below the API's mount point, with its query string. */
  path: string
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** What is wrong with an exchange according to the document; empty when it conforms. */
export function problemsAgainstDocument(exchange: Exchange): string[] {
  const method = exchange.method.toUpperCase()
  const path = exchange.path.split('?')[0]!
  const shaped = TEMPLATES.filter((template) => template.pattern.test(path))
  const lookup = method === 'HEAD' ? 'get' : method.toLowerCase()
  const template = shaped.find((candidate) => candidate.operations[lookup] !== undefined)
  const where = `${method} ${exchange.path} → ${exchange.status}`
  const head = method === 'HEAD'
  const { responses } = DOCUMENT.components
  if (!template) {
    if (shaped.length === 0) return checkResponse(where, exchange, responses.NotFound!, 404, head)
    // The router decodes parameters before it looks at the method.
    if (exchange.status === 400 && undecodable(path, shaped)) return []
    if (method === 'OPTIONS') return checkResponse(where, exchange, responses.Options!, 204)
    return checkResponse(where, exchange, responses.MethodNotAllowed!, 405, head)
  }
  const operation = template.operations[lookup]!
  const documented = operation.responses[String(exchange.status)]
  if (!documented) {
    return [
      `${where}: status ${exchange.status} is not documented for ${operation.operationId} (${Object.keys(operation.responses).join(', ')})`,
    ]
  }
  return checkResponse(where, exchange, resolve(documented), exchange.status, head)
}

function undecodable(path: string, templates: Template[]): boolean {
  return templates.some((template) =>
    (template.pattern.exec(path) ?? []).slice(1).some((part) => {
      try {
        decodeURIComponent(part)
        return false
      } catch {
        return true
      }
    }),
  )
}

function header(exchange: Exchange, name: string): string | undefined {
  const value = exchange.headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(', ') : value
}

function checkResponse(
  where: string,
  exchange: Exchange,
  response: ResponseDoc,
  status: number,
  head = false,
): string[] {
  const problems: string[] = []
  if (exchange.status !== status)
    return [`${where}: expected the documented ${status} (${response.description.slice(0, 60)})`]
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const spec = declared.$ref ? DOCUMENT.components.headers[declared.$ref.split('/').pop()!]! : declared
    const value = header(exchange, name)
    if (value === undefined) {
      if (spec.required) problems.push(`${where}: the required header ${name} is missing`)
      continue
    }
    const typed = (spec.schema as { type?: string }).type === 'integer' && /^\d+$/.test(value) ? Number(value) : value
    if (!validatorOf(spec.schema)(typed))
      problems.push(`${where}: header ${name}: ${JSON.stringify(value)} is not valid`)
  }
  const content = response.content?.['application/json']
  if (!content) {
    if (exchange.text !== '')
      problems.push(`${where}: a body where the document says none: ${exchange.text.slice(0, 100)}`)
    return problems
  }
  // A HEAD answer's headers are not checked further: Node itself answers some HEAD requests that carry a body.
  if (head) return problems
  if (!/^application\/json\b/.test(header(exchange, 'content-type') ?? ''))
    problems.push(`${where}: content-type is not JSON`)
  let body: unknown
  try {
    body = JSON.parse(exchange.text)
  } catch {
    return [...problems, `${where}: the body is not JSON: ${exchange.text.slice(0, 100)}`]
  }
  const validate = validatorOf(content.schema)
  if (!validate(body)) {
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`).join('; ')
    problems.push(`${where}: the body does not match the document: ${errors}; body ${exchange.text.slice(0, 200)}`)
  }
  return problems
}

/** Throws with every problem of the exchange. */
export function assertConforms(exchange: Exchange): void {
  const problems = problemsAgainstDocument(exchange)
  if (problems.length > 0) throw new Error(`response does not conform to the OpenAPI document:\n${problems.join('\n')}`)
}

/**
 * A supertest assertion (`.expect(conformsUnder('/api'))`): the response of a
 * request to a path under `base` conforms to the document. Paths outside
 * `base` are left alone.
 */
export function conformsUnder(base = '/api'): (res: request.Response) => void {
  return (res) => {
    const req = (res as unknown as { request: { method: string; url: string } }).request
    const url = new URL(req.url)
    if (!url.pathname.startsWith(`${base}/`)) return
    assertConforms({
      method: req.method,
      path: url.pathname.slice(base.length) + url.search,
      status: res.status,
      headers: res.headers as Exchange['headers'],
      text: res.text ?? '',
    })
  }
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'del'])

/** `supertest(target)` whose every request checks its response with {@link conformsUnder}. */
export function checkedRequest(target: Parameters<typeof request>[0], base = '/api'): ReturnType<typeof request> {
  const agent = request(target)
  return new Proxy(agent, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown
      if (typeof property !== 'string' || !METHODS.has(property) || typeof value !== 'function') return value
      return (url: string) => (value as (url: string) => request.Test).call(object, url).expect(conformsUnder(base))
    },
  })
}

/**
 * `fetch` whose response, when its URL is under `${origin}${base}`, is checked
 * against the document. The body is read for the check; the returned Response
 * is an equivalent one that can still be read.
 */
export async function checkedFetch(url: string, init: RequestInit = {}, base = '/api'): Promise<Response> {
  const res = await fetch(url, init)
  const text = await res.text()
  const { pathname, search } = new URL(url)
  if (pathname.startsWith(`${base}/`)) {
    assertConforms({
      method: init.method ?? 'GET',
      path: pathname.slice(base.length) + search,
      status: res.status,
      headers: Object.fromEntries(res.headers),
      text,
    })
  }
  const body = res.status === 204 || res.status === 304 || (init.method ?? 'GET').toUpperCase() === 'HEAD' ? null : text
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
}
