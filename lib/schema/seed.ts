/**
 * JSON Schemas of the test double's seed and snapshot body: the sections
 * `POST /__admin/seed` accepts (`controls.seed`) and `GET /__admin/snapshot`
 * answers, entry by entry, with the state a snapshot carries.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { accountNameSchema, createAccountSchema } from './accounts.js'
import { activitySchema, adminDateSchema, text, visitSchema, type ActivityBody, type VisitBody } from './admin.js'
import { siteDataSchema, siteNameSchema } from './sites.js'
import { compile } from './validate.js'
import { permissionListSchema } from './duda/accounts.js'
import { ACTIVITY_TYPES, templateIdSchema } from './duda/sites.js'
import { closedObject } from './closed-object.js'

const count = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const
const BUILD = {
  enum: ['built', 'delayed', 'pending', 'FAILED', 'FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG'],
} as const

export const seedMasterSchema = closedObject(
  {
    user: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      pattern: '^[^:]+$',
      description: 'a non-empty name without ":"',
    },
    password: text(1000),
    password_hash: text(4000),
    partner: { type: 'boolean' },
  },
  ['user'],
)
export type SeedMaster = FromSchema<typeof seedMasterSchema>

const siteProps = siteDataSchema.properties
/** Create Site's site_data fields, flat, plus the owner and the state a snapshot carries. */
export const seedSiteSchema = closedObject(
  {
    ...siteProps,
    owner: text(200),
    published: { type: 'boolean' },
    created_at: adminDateSchema,
    modified_at: adminDateSchema,
    published_at: adminDateSchema,
    first_published_at: adminDateSchema,
    redirect_confirmed_at: adminDateSchema,
    cache_reset_at: adminDateSchema,
    build: BUILD,
    publish_when_built: { type: 'boolean' },
    initial: siteDataSchema,
    /** Duda's paths: the template named at create or reset (echoed by `sites.get`). */
    template_id: templateIdSchema,
    /** Last unpublish (Duda's unpublished listing). */
    unpublished_at: adminDateSchema,
    /** The site's activity log, oldest first (Duda's `activities.get`); the engine keeps the last 100. */
    activity_log: {
      type: 'array',
      maxItems: 100,
      items: closedObject({ at: adminDateSchema, activity: { enum: ACTIVITY_TYPES } }, ['at', 'activity']),
    },
  },
  ['owner', 'site_name', 'original_site_url'],
)
export type SeedSite = FromSchema<typeof seedSiteSchema>

export const seedAccountSchema = closedObject(
  {
    ...createAccountSchema.properties,
    owner: text(200),
    created_at: adminDateSchema,
    /** Which incarnation of the name this account is (dashboard sessions die with it); snapshots carry it. */
    incarnation: text(200),
  },
  ['owner', 'account_name'],
)
export type SeedAccount = FromSchema<typeof seedAccountSchema>

export const seedGrantSchema = closedObject(
  { owner: text(200), account_name: accountNameSchema, site_name: siteNameSchema, permissions: permissionListSchema },
  ['owner', 'account_name', 'site_name'],
)
export type SeedGrant = FromSchema<typeof seedGrantSchema>

export const seedLedgerSchema = closedObject(
  {
    owner: text(200),
    charges: {
      type: 'array',
      items: closedObject({ site_name: siteNameSchema, at: adminDateSchema }, ['site_name', 'at']),
    },
    subscriptions: {
      type: 'array',
      items: closedObject({ site_name: siteNameSchema, status: { enum: ['active', 'cancelled'] } }, [
        'site_name',
        'status',
      ]),
    },
  },
  ['owner'],
)
export type SeedLedger = FromSchema<typeof seedLedgerSchema>

const activityCounts = closedObject(
  { click_to_call: count, click_to_map: count, click_to_email: count, form_submit: count },
  ['click_to_call', 'click_to_map', 'click_to_email', 'form_submit'],
)
const visitorIds = { type: 'array', items: text(256) } as const
const sketch = { type: 'string', maxLength: 100_000, pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'base64' } as const
const cell = closedObject(
  {
    key: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'string', maxLength: 16384 } },
    visits: count,
    page_views: count,
    activities: activityCounts,
    visitors: visitorIds,
    visitors_sketch: sketch,
  },
  ['key', 'visits', 'page_views', 'activities'],
)

/** One site-day of recorded analytics, as a snapshot gives it. */
export const seedAnalyticsSchema = closedObject(
  {
    site_name: siteNameSchema,
    day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a UTC day YYYY-MM-DD' },
    visits: count,
    page_views: count,
    activities: activityCounts,
    visitors: visitorIds,
    visitors_sketch: sketch,
    system: { type: 'array', items: cell },
    geo: { type: 'array', items: cell },
  },
  ['site_name', 'day', 'visits', 'page_views', 'activities', 'system', 'geo'],
)
export type SeedAnalyticsDay = FromSchema<typeof seedAnalyticsSchema>

/** The entry schema of each seed section. */
export const seedSections = {
  masters: seedMasterSchema,
  sites: seedSiteSchema,
  accounts: seedAccountSchema,
  grants: seedGrantSchema,
  visits: visitSchema,
  activities: activitySchema,
  billing: seedLedgerSchema,
  analytics: seedAnalyticsSchema,
} as const

const entries = { type: 'array', maxItems: 1_000_000, items: { type: 'object' } } as const

/**
 * The seed body's outline. Entries are checked one by one against
 * {@link seedSections} (so every bad entry is reported, not the first).
 */
/** `clock` in a seed body: the time the clock is frozen at before the records are made. */
const seedClockSchema = {
  ...adminDateSchema,
  description: `freezes the clock at this time before any record is made (${adminDateSchema.description})`,
} as const

export const seedSchema = closedObject({
  clock: seedClockSchema,
  masters: entries,
  sites: entries,
  accounts: entries,
  grants: entries,
  visits: entries,
  activities: entries,
  billing: entries,
  analytics: entries,
})

/** The seed body with each section's entry schema in place: what seed accepts and snapshot answers. */
export const seedBodySchema = closedObject({
  clock: seedClockSchema,
  ...Object.fromEntries(
    Object.entries(seedSections).map(([name, entry]) => [name, { type: 'array', maxItems: 1_000_000, items: entry }]),
  ),
})

export const validateSeedShape = compile<Record<string, unknown[] | undefined>>(seedSchema)
/** Entry validators, by seed section; their messages are prefixed with the entry's place. */
export const seedEntryValidators = {
  masters: compile<SeedMaster>(seedMasterSchema, 'entry'),
  sites: compile<SeedSite>(seedSiteSchema, 'entry'),
  accounts: compile<SeedAccount>(seedAccountSchema, 'entry'),
  grants: compile<SeedGrant>(seedGrantSchema, 'entry'),
  visits: compile<VisitBody>(visitSchema, 'entry'),
  activities: compile<ActivityBody>(activitySchema, 'entry'),
  billing: compile<SeedLedger>(seedLedgerSchema, 'entry'),
  analytics: compile<SeedAnalyticsDay>(seedAnalyticsSchema, 'entry'),
} as const
