/**
 * `mobisite/testing`: helpers for testing with and against mobisite.
 *
 * - `storeConformance` and `analyticsConformance`: the suites every Store
 *   passes; run them on your own Store with node-tap (or any runner whose test
 *   object fits {@link Tap}).
 * - Record builders for such tests (`siteRecord`, `accountRecord`, ...).
 */
export { storeConformance, type StoreFactory, type Tap } from './conformance/index.js'
export { analyticsConformance, activityEvent, visitEvent } from './conformance/analytics.js'
export { T0, accountRecord, at, fullSiteRecord, masterRecord, siteRecord, TRICKY_NAMES } from './conformance/fixtures.js'
