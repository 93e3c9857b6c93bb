/**
 * The route labels of apiRouter's requests, as the access log and the
 * request histogram name them: the mount path in lower case and the
 * endpoint's OpenAPI template, `/api/sites/{site_name}`.
 */
import { templateOf } from './hooks.js'

/** What a label is made from: Express's `req.baseUrl`, the mount as the request spelled it. */
interface Mounted {
  baseUrl: string
}

/** Spellings of a mount path (`/api`, `/API`, …) whose route labels are kept, per route. */
const MOUNT_SPELLINGS_KEPT = 16

/**
 * The mount path as labels name it: Express matches a mount path in any
 * letter case (`/API/sites/x` reaches a router mounted at `/api`), and
 * `req.baseUrl` is the request's spelling; a label in that spelling would let
 * clients multiply the series (8 casings of /api made 100× the series).
 * Lower case is the standalone server's own spelling of its mounts.
 */
export function mountOf(req: Mounted): string {
  return req.baseUrl.toLowerCase()
}

/**
 * The label of an endpoint's Express `path` as `req` reached it, kept by
 * path and then by the mount as the request spelled it: one string per
 * route, so the log's and the metrics' lookups find its hash made. A label
 * made per request was a new string to lower-case, join, flatten and hash
 * again in each of them (issue 38). Express matches mounts in any letter
 * case, so the spellings kept per route are bounded.
 */
export function routeLabels(): (req: Mounted, path: string) => string {
  const labels = new Map<string, Map<string, string>>()
  return (req, path) => {
    let byMount = labels.get(path)
    if (byMount === undefined) labels.set(path, (byMount = new Map()))
    let label = byMount.get(req.baseUrl)
    if (label === undefined) {
      label = `${mountOf(req)}${templateOf(path)}`
      if (byMount.size < MOUNT_SPELLINGS_KEPT) byMount.set(req.baseUrl, label)
    }
    return label
  }
}
