/**
 * `mobisite --demo`: fills an engine with a sub-account, a site granted to
 * it and 30 days of plausible traffic, so a first look at the dashboard
 * shows something. Uses only the public engine API, as a partner would.
 */
import { ACTIVITY_KINDS } from '../../types/index.js'
import type { Engine } from '../engine/types.js'

/** What {@link seedDemo} created. */
export interface DemoSeed {
  account_name: string
  site_name: string
}

/** The demo's names; fixed, so a second `--demo` on a shared store reuses them. */
export const DEMO_ACCOUNT = 'demo@example.com'
export const DEMO_SITE = 'demo-bistro'

const COUNTRIES = ['US', 'US', 'US', 'CA', 'GB', 'GB', 'DE', 'FR', 'JP', 'BR', 'MX']
const AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0',
]
const KINDS = ACTIVITY_KINDS

/** A small deterministic generator (mulberry32), so every demo looks the same. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(next: () => number, list: readonly T[]): T => list[Math.floor(next() * list.length)]!

/**
 * Creates (when missing) the demo sub-account and site for the partner
 * `user`, grants it, and records 30 days of visits and activities ending
 * today on the engine clock. Safe to run again: existing ones are reused.
 */
export async function seedDemo(engine: Engine, user: string): Promise<DemoSeed> {
  const api = engine.as(user)
  const exists = (error: unknown) => (error as { error_code?: string }).error_code === 'ResourceAlreadyExist'
  await api
    .createAccount({ account_name: DEMO_ACCOUNT, first_name: 'Demo', last_name: 'Owner', email: DEMO_ACCOUNT })
    .catch((e) => {
      if (!exists(e)) throw e
    })
  const created = await api
    .createSite({
      site_data: {
        site_name: DEMO_SITE,
        original_site_url: 'https://www.example.com/',
        site_business_info: { business_name: 'Demo Bistro' },
      },
    })
    .then(
      () => true,
      (e: unknown) => {
        if (!exists(e)) throw e
        return false
      },
    )
  await api.grantAccess(DEMO_ACCOUNT, DEMO_SITE)
  if (created) {
    await api.publishSite(DEMO_SITE, { test: 'true' })
    await recordTraffic(engine, DEMO_SITE, 30)
  }
  return { account_name: DEMO_ACCOUNT, site_name: DEMO_SITE }
}

/** `days` days of visits (more on weekends, a gentle upward trend) and some activities, ending today. */
export async function recordTraffic(engine: Engine, site_name: string, days: number): Promise<void> {
  const next = random(20_240_601)
  const today = Math.floor(engine.now().getTime() / 86_400_000) * 86_400_000
  for (let d = days - 1; d >= 0; d--) {
    const start = today - d * 86_400_000
    const weekend = [0, 6].includes(new Date(start).getUTCDay())
    const visits = Math.round((weekend ? 60 : 35) + (days - d) * 0.8 + next() * 20)
    const work: Promise<void>[] = []
    for (let v = 0; v < visits; v++) {
      work.push(
        engine.recordVisit({
          site_name,
          at: new Date(start + Math.floor(next() * 86_000_000)),
          // A pool smaller than the visits, so some visitors come back.
          visitor_id: `demo-visitor-${Math.floor(next() * 150)}`,
          user_agent: pick(next, AGENTS),
          country: pick(next, COUNTRIES),
          page_views: 1 + Math.floor(next() * next() * 6),
        }),
      )
    }
    for (let a = Math.floor(visits / 8); a > 0; a--) {
      work.push(
        engine.recordActivity({
          site_name,
          at: new Date(start + Math.floor(next() * 86_000_000)),
          kind: pick(next, KINDS),
        }),
      )
    }
    await Promise.all(work)
  }
}
