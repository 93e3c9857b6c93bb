/**
 * RedisStore's sites and billing. A site is a hash (hash-fields.ts) under
 * the site's hash tag; its listing indexes (sorted sets by created_at and
 * modified_at), its external-uid index and the billing ledger are under the
 * owner's tag, and its case-folded name claim is a key of its own (keys.ts).
 * Each step below is one Lua script or pipeline on one slot; a rule that
 * spans slots is a sequence whose commit point is the site hash:
 *
 * - create: claim the name (claims.ts), add the owner's index entries, then
 *   write the site hash. Index entries without a site are skipped by every
 *   reader, so a crash anywhere before the hash leaves nothing visible.
 * - delete: delete the site hash (with its grants and analytics), then the
 *   owner's index entries and live subscription, the accounts' grant entries
 *   (with their permissions), and the claim. Leftovers of a crash are again skipped by readers (the
 *   claim is taken over after the claim timeout), except that the site's
 *   subscription may stay active in the ledger.
 * - publish: decide the first publish on the site (so one charge however
 *   many race; a test publish, without charge, is none), then the owner's
 *   ledger and modified index.
 *
 * On a single Redis each of these rules is one script instead (the `_1` forms
 * beside the steps in lua/sites.ts): one round trip, as atomic as a script is.
 */
import { StoreUnavailableError } from '../contract/index.js'
import type { BillingRecord, SiteRecord } from '../contract/index.js'
import type { SitesStore } from '../contract/sites.js'
import { foldName } from '../shared/name-fold.js'
import { claimName, releaseName } from './claims.js'
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
  APPEND_SITE_ACTIVITY,
  CREATE_SITE,
  CREATE_SITE_1,
  DELETE_SITE,
  DELETE_SITE_1,
  FIND_BY_EXTERNAL_UID_1,
  GET_BILLING,
  GET_HASHES_1,
  LIST_SITES_1,
  NOTE_SUBSCRIPTION,
  PUBLISH_SITE,
  PUBLISH_SITE_1,
  RECORD_PUBLISH,
  UPDATE_SITE,
  UPDATE_SITE_1,
} from './lua/sites.js'

/** The site and billing methods of the Store contract, on Redis. */
export function redisSites(conn: RedisConn, k: RedisKeys, claimTimeout: number): SitesStore {
  const cluster = conn.cluster
  const getSite = (site_name: string) => {
    // One key needs no script: a plain HGETALL is the same single read, and
    // cheaper for Redis than running Lua (this is the API's most frequent call).
    // callBuffer leaves the reply a flat array of Buffers, decoded in one parse.
    const key = k.site(site_name)
    return conn.call((c) => c.callBuffer('HGETALL', key)).then(decodeFieldBuffers<SiteRecord>)
  }
  /** The site's owner in stored (JSON) form, or null. */
  const ownerOf = (site_name: string) => conn.call((c) => c.hget(k.site(site_name), 'owner'))

  return {
    async createSite(site) {
      const name = site.site_name
      const xuid = site.external_uid === undefined ? undefined : k.externalUid(site.owner, site.external_uid)
      if (!cluster) {
        const keys = [k.siteClaim(foldName(name)), k.site(name), k.created(site.owner), k.modified(site.owner)]
        if (xuid !== undefined) keys.push(xuid)
        const fields = [...encodeFields(site), '#obase', k.ownerBase(site.owner)]
        if (xuid !== undefined) fields.push('#xkey', xuid)
        const args = [k.prefix, name, site.created_at, site.modified_at, claimTimeout, ...fields]
        return (await conn.write(CREATE_SITE_1, keys, args)) === 1
      }
      const exists = async (holder: string) => (await ownerOf(holder)) !== null
      const at = await claimName(conn, k.siteClaim(foldName(name)), name, claimTimeout, exists)
      if (at === undefined) return false
      const xkey = xuid
      await conn.writeCommands((p) => {
        p.zadd(k.created(site.owner), site.created_at, name)
        p.zadd(k.modified(site.owner), site.modified_at, name)
        if (xkey !== undefined) p.zadd(xkey, site.created_at, name)
      })
      const fields = [...encodeFields(site), '#obase', k.ownerBase(site.owner), '#claim', at]
      if (xkey !== undefined) fields.push('#xkey', xkey)
      const created = await conn.write(CREATE_SITE, [k.site(name)], [at, Math.floor(claimTimeout / 2), ...fields])
      if (created === -1) throw new StoreUnavailableError(`creating site ${name} took too long; try again`)
      return created === 1
    },

    getSite,

    async getSites(site_names) {
      if (cluster || site_names.length === 0) return Promise.all(site_names.map(getSite))
      const hashes = (await conn.run(GET_HASHES_1, site_names.map(k.site.bind(k)), [])) as unknown[]
      return hashes.map((h) => decodeFields<SiteRecord>(h))
    },

    async findSiteByExternalUid(owner, external_uid) {
      if (!cluster) {
        const args = [k.prefix, JSON.stringify(owner), JSON.stringify(external_uid)]
        return decodeFields<SiteRecord>(
          await conn.run(FIND_BY_EXTERNAL_UID_1, [k.externalUid(owner, external_uid)], args),
        )
      }
      const names = await conn.call((c) => c.zrevrange(k.externalUid(owner, external_uid), 0, -1))
      const ownerJson = JSON.stringify(owner)
      for (const name of names) {
        const site = await getSite(name)
        // An entry left by an interrupted step, or a stale one: the site says.
        if (site && JSON.stringify(site.owner) === ownerJson && site.external_uid === external_uid) return site
      }
      return undefined
    },

    async updateSite(owner, site_name, patch, expect) {
      checkSitePatch(patch)
      const expected = encodeExpectation(expect, 'updateSite')
      let uidAction = ''
      if (patch.external_uid === null) uidAction = '-'
      else if (patch.external_uid !== undefined) uidAction = k.externalUid(owner, patch.external_uid)
      if (!cluster) {
        const args = [JSON.stringify(owner), site_name, uidAction, ...expected, ...encodePatch(patch)]
        return decodeFields<SiteRecord>(await conn.write(UPDATE_SITE_1, [k.site(site_name), k.modified(owner)], args))
      }
      const reply = (await conn.write(
        UPDATE_SITE,
        [k.site(site_name)],
        [JSON.stringify(owner), uidAction, ...expected, ...encodePatch(patch)],
      )) as [unknown, string | null] | null
      if (reply === null) return undefined
      const site = decodeFields<SiteRecord>(reply[0])
      const old = reply[1]
      if (site && (patch.modified_at !== undefined || uidAction !== '')) {
        await conn.writeCommands((p) => {
          if (patch.modified_at !== undefined) p.zadd(k.modified(owner), site.modified_at, site_name)
          if (uidAction !== '' && old && old !== uidAction) p.zrem(old, site_name)
          if (uidAction !== '' && uidAction !== '-') p.zadd(uidAction, site.created_at, site_name)
        })
      }
      return site
    },

    async appendSiteActivity(owner, site_name, entry, max) {
      // The log lives in the site hash: one slot, one script in both modes.
      const appended = await conn.write(
        APPEND_SITE_ACTIVITY,
        [k.site(site_name)],
        [JSON.stringify(owner), JSON.stringify({ at: entry.at, activity: entry.activity }), String(max)],
      )
      return appended === 1
    },

    async publishSite(owner, site_name, at, charge, expect) {
      const expected = encodeExpectation(expect, 'publishSite')
      const ownerJson = JSON.stringify(owner)
      const chargeEntry = JSON.stringify({ site_name, at })
      const subEntry = JSON.stringify({ site_name, status: 'active' })
      if (!cluster) {
        const keys = [k.site(site_name), k.modified(owner), k.charges(owner), k.subscriptions(owner)]
        const args = [ownerJson, site_name, String(at), charge ? '1' : '0', chargeEntry, subEntry, ...expected]
        const result = await conn.write(PUBLISH_SITE_1, keys, args)
        return result === -1 ? undefined : { charged: result === 1 }
      }
      const args = [ownerJson, String(at), charge ? '1' : '0', ...expected]
      const first = (await conn.write(PUBLISH_SITE, [k.site(site_name)], args)) as number
      if (first === -1) return undefined
      const sub = (await conn.write(
        RECORD_PUBLISH,
        [k.modified(owner), k.charges(owner), k.subscriptions(owner)],
        [site_name, String(at), first === 1 ? '1' : '0', chargeEntry, subEntry],
      )) as number
      if (sub >= 0) {
        const noted = await conn.write(NOTE_SUBSCRIPTION, [k.site(site_name)], [ownerJson, sub])
        // Deleted meanwhile: its delete could not cancel what it did not know.
        if (noted === 0) await cancel(owner, site_name, String(sub))
      }
      return { charged: first === 1 }
    },

    async deleteSite(owner, site_name, expect) {
      const expected = encodeExpectation(expect, 'deleteSite')
      const ownerJson = JSON.stringify(owner)
      if (!cluster) {
        const keys = [
          ...[k.site(site_name), k.siteGrants(site_name), k.siteBase(site_name)],
          ...[k.created(owner), k.modified(owner), k.subscriptions(owner), k.siteClaim(foldName(site_name))],
        ]
        const cancelled = JSON.stringify({ site_name, status: 'cancelled' })
        const args = [ownerJson, ...expected, k.prefix, site_name, cancelled, k.ownerBase(owner)]
        return (await conn.write(DELETE_SITE_1, keys, args)) === 1
      }
      const reply = (await conn.write(
        DELETE_SITE,
        [k.site(site_name), k.siteGrants(site_name), k.siteBase(site_name)],
        [ownerJson, ...expected],
      )) as [string, string, string, string[], string[]] | null
      if (reply === null) return false
      const [xkey, sub, claimAt, accounts, days] = reply
      await conn.writeCommands((p) => {
        p.zrem(k.created(owner), site_name)
        p.zrem(k.modified(owner), site_name)
        if (xkey) p.zrem(xkey, site_name)
        for (const day of days) p.zrem(k.rank(day, owner), site_name)
      })
      if (sub !== '') await cancel(owner, site_name, sub)
      await Promise.all(
        accounts.map((account) =>
          conn.writeCommands((p) =>
            p.srem(k.accountGrants(account), site_name).hdel(k.grantPermissions(account), site_name),
          ),
        ),
      )
      await releaseName(conn, k.siteClaim(foldName(site_name)), site_name, claimAt || undefined)
      return true
    },

    async listSites(owner, by, from, to) {
      if (from > to) return []
      const key = by === 'created' ? k.created(owner) : k.modified(owner)
      if (!cluster) {
        return (await conn.run(LIST_SITES_1, [key], [from, to, k.prefix, JSON.stringify(owner)])) as string[]
      }
      // Equal scores come back in member (byte) order: ties by name.
      const names = await conn.call((c) => c.zrangebyscore(key, from, to))
      if (names.length === 0) return names
      // An entry whose site does not exist (an interrupted create or delete)
      // or is another owner's (recreated since) is not listed.
      const owners = await Promise.all(names.map(ownerOf))
      const ownerJson = JSON.stringify(owner)
      return names.filter((_, i) => owners[i] === ownerJson)
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

  /** Marks the site's subscription at `index` of the owner's ledger cancelled. */
  function cancel(owner: string, site_name: string, index: string) {
    const cancelled = JSON.stringify({ site_name, status: 'cancelled' })
    return conn.writeCommands((p) => p.lset(k.subscriptions(owner), index, cancelled))
  }
}
