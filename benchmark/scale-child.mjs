// The measured process of benchmark/scale.ts, in plain JS on the built
// package so no TypeScript loader adds to its memory or time. Run with
// --expose-gc. argv: the mobisite entry (dist/esm/lib/index.js), then
//   seed <n> <checkpoint,...>   create n sites through the engine with a frozen clock
//   traffic <sites> <days> [<history days>] [uniform|zipf]
//                               time Get Sites with Most Traffic over <days> days, with
//                               visits on the <history days> (default <days>) up to the last,
//                               1 to 3 a day per site (uniform) or Zipf-distributed over sites
// Prints one JSON line.
const [entry, mode, ...args] = process.argv.slice(2)
const { createEngine, MemoryStore } = await import(entry)
const DAY = 86_400_000
const T0 = Date.UTC(2025, 0, 1)
const MB = 1024 * 1024

function memory() {
  globalThis.gc()
  globalThis.gc()
  const { heapUsed, external, rss } = process.memoryUsage()
  return { heapMB: Math.round((heapUsed + external) / MB), rssMB: Math.round(rss / MB) }
}

if (mode === 'seed') {
  const n = Number(args[0])
  const checkpoints = new Set((args[1] ?? '').split(',').filter(Boolean).map(Number))
  const frozen = new Date(T0)
  const engine = createEngine({ now: () => frozen })
  await engine.addMasterAccount({ user: 'seeder', password: 'pw' })
  const api = engine.as(await engine.authenticate('seeder', 'pw'))
  const base = memory()
  const marks = []
  let seeding = 0
  const cpuStart = process.cpuUsage()
  let start = performance.now()
  for (let i = 1; i <= n; i++) {
    await api.createSite({
      site_data: { site_name: `site-${i}`, original_site_url: `https://www.example${i % 1000}.com/` },
    })
    if (checkpoints.has(i)) {
      seeding += performance.now() - start
      marks.push({ sites: i, ...memory() })
      start = performance.now()
    }
  }
  seeding += performance.now() - start
  const used = process.cpuUsage(cpuStart)
  // The listing still holds every site, in name order at the one timestamp.
  const listed = await api.sitesCreated({ from: '2025-01-01', to: '2025-01-02' })
  if (listed.length !== n) throw new Error(`listed ${listed.length} of ${n}`)
  // CPU time counts the checkpoints' forced collections too; they are few and small beside the seeding.
  console.log(JSON.stringify({ sites: n, ms: seeding, cpuMs: (used.user + used.system) / 1000, base, marks }))
} else if (mode === 'traffic') {
  const sites = Number(args[0])
  const days = Number(args[1])
  const history = Number(args[2] ?? days)
  const spread = args[3] ?? 'uniform'
  const store = new MemoryStore()
  let now = T0 + 400 * DAY
  const engine = createEngine({ store, now: () => new Date((now += 300_000)) })
  await engine.addMasterAccount({ user: 'ranker', password: 'pw' })
  const api = engine.as('ranker')
  for (let s = 0; s < sites; s++)
    await api.createSite({ site_data: { site_name: `rank${s}`, original_site_url: 'https://www.example.com' } })
  let seed = 42
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  // Zipf: site s draws visits in proportion to 1 / (s + 1), as web traffic
  // does; a day has 2 visits per site in all, with the fraction drawn at random.
  let harmonic = 0
  for (let s = 1; s <= sites; s++) harmonic += 1 / s
  const dailyVisits =
    spread === 'zipf'
      ? (s) => {
          const mean = (2 * sites) / (harmonic * (s + 1))
          return Math.floor(mean) + (random() < mean % 1 ? 1 : 0)
        }
      : () => 1 + Math.floor(random() * 3)
  let visits = 0
  for (let d = days - history; d < days; d++) {
    const day = new Date(T0 + d * DAY).toISOString().slice(0, 10)
    for (let s = 0; s < sites; s++) {
      // Uniform: 1 to 3 visits a day per site. Visitors come from a pool of 30 per site.
      const count = dailyVisits(s)
      for (let v = 0; v < count; v++, visits++) {
        await store.recordVisit({
          site_name: `rank${s}`,
          day,
          visitor_id: `v${Math.floor(random() * 30)}`,
          page_views: 1 + (v & 1),
          browser: 'Chrome 120',
          os: v & 1 ? 'Android' : 'iOS',
          country: 'US',
          region: 'Unknown',
        })
      }
    }
  }
  const period = {
    from: new Date(T0).toISOString().slice(0, 10),
    to: new Date(T0 + (days - 1) * DAY).toISOString().slice(0, 10),
  }
  for (let i = 0; i < 5; i++) await api.sitesWithMostTraffic(period)
  // Wall time and this thread's CPU time: on a busy machine the process may
  // be descheduled mid-call, which the CPU time does not count.
  const times = []
  const cpu = []
  for (let i = 0; i < 31; i++) {
    const t = performance.now()
    const c = process.cpuUsage()
    await api.sitesWithMostTraffic(period)
    const used = process.cpuUsage(c)
    times.push(performance.now() - t)
    cpu.push((used.user + used.system) / 1000)
  }
  const median = (xs) => xs.sort((a, b) => a - b)[15]
  console.log(JSON.stringify({ sites, days, history, spread, visits, ms: median(times), cpuMs: median(cpu) }))
}
process.exit(0)
