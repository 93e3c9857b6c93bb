/**
 * Today's Duda sites and site-reporting calls as API operations (see
 * operations.ts for what an entry holds), spread into OPERATIONS so they are
 * routes, MasterApi methods, OpenAPI operations and docs like the spec's.
 */
import type { ErrorCode } from '../../errors.js'
import {
  dudaActivitiesQuerySchema,
  dudaActivitiesSchema,
  dudaCreateSiteSchema,
  dudaDuplicateSiteSchema,
  dudaLastDaysQuerySchema,
  dudaListQuerySchema,
  dudaResetSiteSchema,
  dudaSiteListSchema,
  dudaSiteNameSchema,
  dudaSiteSchema,
  dudaUpdateSiteSchema,
  siteNamesSchema,
} from '../../schema/duda/sites.js'
import { periodQuerySchema } from '../../schema/sites.js'
import * as duda from './sites.js'
import { operation } from '../api/operation-definition.js'
import * as sites from '../rules/sites.js'

const notExist: readonly ErrorCode[] = ['ResourceNotExist']
const TAG = 'Sites (Duda)'

/** Today's Duda sites and site-reporting operations, by MasterApi method name. */
export const DUDA_SITE_OPERATIONS = {
  /** Duda's Get Sites Created: names of the caller's sites created in the period. */
  dudaSitesCreated: operation({
    operationId: 'dudaSitesCreated',
    tag: TAG,
    summary: 'Get Sites Created Between Dates (Duda)',
    http: { method: 'GET', path: '/sites/multiscreen/created', input: 'query' },
    request: periodQuerySchema,
    response: siteNamesSchema,
    run: duda.dudaSitesCreated,
  }),
  /** Duda's Get Published Sites: still published, last published within `lastDays` (default 7). */
  dudaSitesPublished: operation({
    operationId: 'dudaSitesPublished',
    tag: TAG,
    summary: 'Get Published Sites (Duda)',
    http: { method: 'GET', path: '/sites/multiscreen/published', input: 'query' },
    request: dudaLastDaysQuerySchema,
    response: siteNamesSchema,
    run: duda.dudaSitesPublished,
  }),
  /** Duda's Get Unpublished Sites: unpublished within `lastDays` (default 7) and not published since. */
  dudaSitesUnpublished: operation({
    operationId: 'dudaSitesUnpublished',
    tag: TAG,
    summary: 'Get Unpublished Sites (Duda)',
    http: { method: 'GET', path: '/sites/multiscreen/unpublished', input: 'query' },
    request: dudaLastDaysQuerySchema,
    response: siteNamesSchema,
    run: duda.dudaSitesUnpublished,
  }),
  /** Duda's List Sites: a page (`offset`, `limit` 1-100, default 50) of the caller's sites, oldest first. */
  dudaListSites: operation({
    operationId: 'dudaListSites',
    tag: TAG,
    summary: 'List Sites (Duda)',
    http: { method: 'GET', path: '/sites/multiscreen', input: 'query' },
    request: dudaListQuerySchema,
    response: dudaSiteListSchema,
    run: duda.dudaListSites,
  }),
  /** Duda's Create Site: built at once; `url` optional; `default_domain_prefix` is the site name. */
  dudaCreateSite: operation({
    operationId: 'dudaCreateSite',
    tag: TAG,
    summary: 'Create Site (Duda)',
    description:
      'The site is built before the answer, like Create Site with create_now true, and is the same site on the spec paths. default_domain_prefix, when given, is its site_name; otherwise the name comes from url, or is 8 random hex digits. Without url, original_site_url (spec paths) is https://<site_name>.mobisite.invalid/. template_id is recorded and echoed; no content is made from it.',
    http: { method: 'POST', path: '/sites/multiscreen/create', input: 'optional-body' },
    request: dudaCreateSiteSchema,
    response: dudaSiteNameSchema,
    errors: ['ResourceAlreadyExist'],
    run: duda.dudaCreateSite,
  }),
  /** Duda's Get Sites by External ID: the names of the caller's sites with it, oldest first (maybe none). */
  dudaSitesByExternalUid: operation({
    operationId: 'dudaSitesByExternalUid',
    tag: TAG,
    summary: 'Get Sites by External ID (Duda)',
    http: { method: 'GET', path: '/sites/multiscreen/byexternalid/:external_uid', input: 'none' },
    response: siteNamesSchema,
    run: duda.dudaSitesByExternalUid,
  }),
  /** Duda's site activity log, newest first. */
  dudaSiteActivities: operation({
    operationId: 'dudaSiteActivities',
    tag: TAG,
    summary: 'Get Site Activity Log (Duda)',
    description:
      "The site's last 100 activities, newest first: its creation (on either path) and the publishes, unpublishes and resets made on these paths. `activities` filters by type (comma-separated: site_created, site_published, site_unpublished, site_reset), `from`/`to` by date (default: all time), `offset`/`limit` (1-100, default 50) page.",
    http: { method: 'GET', path: '/sites/multiscreen/:site_name/activities', input: 'query' },
    request: dudaActivitiesQuerySchema,
    response: dudaActivitiesSchema,
    errors: notExist,
    run: duda.dudaSiteActivities,
  }),
  /** Duda's Get Site. */
  dudaGetSite: operation({
    operationId: 'dudaGetSite',
    tag: TAG,
    summary: 'Get Site (Duda)',
    http: { method: 'GET', path: '/sites/multiscreen/:site_name', input: 'none' },
    response: dudaSiteSchema,
    errors: notExist,
    run: duda.dudaGetSite,
  }),
  /** Duda's Delete Site: as Delete Site (subscription cancelled, grants removed). */
  dudaDeleteSite: operation({
    operationId: 'dudaDeleteSite',
    tag: TAG,
    summary: 'Delete Site (Duda)',
    http: { method: 'DELETE', path: '/sites/multiscreen/:site_name', input: 'none' },
    errors: notExist,
    run: sites.deleteSite,
  }),
  /** Duda's Update Site: site_domain, external_uid, site_business_info. */
  dudaUpdateSite: operation({
    operationId: 'dudaUpdateSite',
    tag: TAG,
    summary: 'Update Site (Duda)',
    http: { method: 'POST', path: '/sites/multiscreen/update/:site_name', input: 'body' },
    request: dudaUpdateSiteSchema,
    errors: notExist,
    run: duda.dudaUpdateSite,
  }),
  /** Duda's Publish Site: the first publish charges, as on the spec's path. */
  dudaPublishSite: operation({
    operationId: 'dudaPublishSite',
    tag: TAG,
    summary: 'Publish Site (Duda)',
    http: { method: 'POST', path: '/sites/multiscreen/publish/:site_name', input: 'none' },
    errors: notExist,
    run: duda.dudaPublishSite,
  }),
  /** Duda's Unpublish Site. */
  dudaUnpublishSite: operation({
    operationId: 'dudaUnpublishSite',
    tag: TAG,
    summary: 'Unpublish Site (Duda)',
    http: { method: 'POST', path: '/sites/multiscreen/unpublish/:site_name', input: 'none' },
    errors: notExist,
    run: duda.dudaUnpublishSite,
  }),
  /** Duda's Reset Site: records `template_id`; `site_data.removeBizInfos` drops the business info. */
  dudaResetSite: operation({
    operationId: 'dudaResetSite',
    tag: TAG,
    summary: 'Reset Site (Duda)',
    http: { method: 'POST', path: '/sites/multiscreen/reset/:site_name', input: 'optional-body' },
    request: dudaResetSiteSchema,
    errors: notExist,
    run: duda.dudaResetSite,
  }),
  /** Duda's Duplicate Site: an unpublished copy named `new_default_domain_prefix`. */
  dudaDuplicateSite: operation({
    operationId: 'dudaDuplicateSite',
    tag: TAG,
    summary: 'Duplicate Site (Duda)',
    http: { method: 'POST', path: '/sites/multiscreen/duplicate/:site_name', input: 'body' },
    request: dudaDuplicateSiteSchema,
    response: dudaSiteNameSchema,
    errors: ['ResourceAlreadyExist', 'ResourceNotExist'],
    run: duda.dudaDuplicateSite,
  }),
}
