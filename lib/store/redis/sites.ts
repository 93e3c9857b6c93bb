/**
 * RedisStore's sites and billing. A site is a hash (hash-fields.ts) with its
 * listing indexes (sorted sets by created_at and modified_at), its
 * external-uid index and its case-folded name claim; every write that must
 * hold under concurrency is one Lua script (lua/sites.ts).
 */
import type { BillingRecord, SiteRecord } from '../contract.js'
import type { SiteOps } from '../shared/composed-store.js'
import { foldName } from '../shared/name-fold.js'
import type { RedisConn } from './conn.js'
import {
  checkSitePatch,
  decodeFieldBuffers,
  decodeFields,
  encodeExpectation,
  encodeFields,
  encodePatch,
} from './hash-fields.js'
import type { RedisKeys } from './keys.js'
import {
  CREATE_SITE,
  DELETE_SITE,
  FIND_BY_EXTERNAL_UID,
  GET_BILLING,
  GET_HASHES,
  PUBLISH_SITE,
  UPDATE_SITE,
  APPEND_SITE_ACTIVITY,
} from './lua/sites.js'

/** The site and billing methods of the Store contract, on Redis. */
export function redisSites(conn: RedisConn, k: RedisKeys): SiteOps {
  return {
    async createSite(site) {
      const keys = [k.site(site.site_name), k.created(site.owner), k.modified(site.owner), k.siteFolds()]
      if (site.external_uid !== undefined) keys.push(k.externalUid(site.owner, site.external_uid))
      const args = [
        site.site_name,
        String(site.created_at),
        String(site.modified_at),
        foldName(site.site_name),
        ...encodeFields(site),
      ]
      return (await conn.run(CREATE_SITE, keys, args)) === 1
    },

    getSite(site_name) {
      // One key needs no script: a plain HGETALL is the same single read, and
      // cheaper for Redis than running Lua (this is the API's most frequent call).
      // callBuffer leaves the reply a flat array of Buffers, decoded in one parse.
      const key = k.site(site_name)
      return conn.call((c) => c.callBuffer('HGETALL', key)).then(decodeFieldBuffers<SiteRecord>)
    },

    async getSites(site_names) {
      if (site_names.length === 0) return []
      const hashes = (await conn.run(
        GET_HASHES,
        site_names.map((name) => k.site(name)),
        [],
      )) as unknown[]
      return hashes.map((h) => decodeFields<SiteRecord>(h))
    },

    async findSiteByExternalUid(owner, external_uid) {
      const hash = await conn.run(FIND_BY_EXTERNAL_UID, [k.externalUid(owner, external_uid)], [k.prefix])
      return decodeFields<SiteRecord>(hash)
    },

    async updateSite(owner, site_name, patch, expect) {
      checkSitePatch(patch)
      const expected = encodeExpectation(expect, 'updateSite')
      let uidAction = ''
      if (patch.external_uid === null) uidAction = '-'
      else if (patch.external_uid !== undefined) uidAction = k.externalUid(owner, patch.external_uid)
      const hash = await conn.run(
        UPDATE_SITE,
        [k.site(site_name), k.modified(owner)],
        [JSON.stringify(owner), site_name, uidAction, ...expected, ...encodePatch(patch)],
      )
      return decodeFields<SiteRecord>(hash)
    },

    async appendSiteActivity(owner, site_name, entry, max) {
      const appended = await conn.run(
        APPEND_SITE_ACTIVITY,
        [k.site(site_name)],
        [JSON.stringify(owner), JSON.stringify({ at: entry.at, activity: entry.activity }), String(max)],
      )
      return appended === 1
    },

    async publishSite(owner, site_name, at, charge, expect) {
      const expected = encodeExpectation(expect, 'publishSite')
      const result = await conn.run(
        PUBLISH_SITE,
        [k.site(site_name), k.modified(owner), k.charges(owner), k.subscriptions(owner)],
        [
          JSON.stringify(owner),
          site_name,
          String(at),
          charge ? '1' : '0',
          JSON.stringify({ site_name, at }),
          JSON.stringify({ site_name, status: 'active' }),
          ...expected,
        ],
      )
      return result === -1 ? undefined : { charged: result === 1 }
    },

    async deleteSite(owner, site_name, expect) {
      const expected = encodeExpectation(expect, 'deleteSite')
      const keys = [
        k.site(site_name),
        k.created(owner),
        k.modified(owner),
        k.subscriptions(owner),
        k.siteGrants(site_name),
        k.siteFolds(),
      ]
      const cancelled = JSON.stringify({ site_name, status: 'cancelled' })
      const args = [k.prefix, JSON.stringify(owner), owner, site_name, cancelled, ...expected, foldName(site_name)]
      return (await conn.run(DELETE_SITE, keys, args)) === 1
    },

    async listSites(owner, by, from, to) {
      if (from > to) return []
      const key = by === 'created' ? k.created(owner) : k.modified(owner)
      // Equal scores come back in member (byte) order: ties by name.
      return conn.call((c) => c.zrangebyscore(key, from, to))
    },

    async getBilling(owner) {
      const [charges, subs] = (await conn.run(GET_BILLING, [k.charges(owner), k.subscriptions(owner)], [])) as [
        string[],
        string[],
      ]
      return {
        charges: charges.map((j) => JSON.parse(j) as BillingRecord['charges'][number]),
        subscriptions: subs.map((j) => JSON.parse(j) as BillingRecord['subscriptions'][number]),
      }
    },
  }
}
