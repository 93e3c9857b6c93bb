/**
 * `npm run reliability`: a bounded, loopback-only reliability run that anyone
 * can repeat. It starts its own server processes and its own redis-server (on
 * a free port, in a temporary directory, AOF with fsync always), and writes
 * its figures to docs/RELIABILITY.md with the command that produced them.
 *
 * Phases: fuzzed requests (0 × 5xx, 0 non-JSON answers), mixed load with the
 * server's memory sampled at the start, middle and end, a slowloris check,
 * two-instance races on Redis, a Redis kill under write load with
 * acknowledged-write accounting, a Redis restart that lost everything,
 * issue 23's attacks on authentication (auth.ts) and on the collector
 * (beacons.ts), and issue 34's probes: the state file under a kill -9
 * (state-file.ts), the TLS handshake deadline and drain (drain-tls.ts, which
 * runs alone too), deep bodies and a label flood (surfaces.ts).
 *
 * Sizes (environment): RELIABILITY_FUZZ (requests, default 100000),
 * RELIABILITY_LOAD_SECONDS (default 60), RELIABILITY_KILL_SECONDS (default 15),
 * RELIABILITY_SLOWLORIS (sockets, default 200), RELIABILITY_AUTH_FLOOD (closed
 * sockets, 1500), RELIABILITY_AUTH_SECONDS (10), RELIABILITY_BEACON_SECONDS
 * (random-value floods, 30), RELIABILITY_BACKLOG_SECONDS (PostgreSQL load, 10);
 * RELIABILITY_SIZES_NOTE is printed beside the sizes. Exits 1 when a check fails.
 */
import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import { MB, startChild } from './common.js'
import { fuzzPhase } from './fuzz.js'
import { loadPhase, slowlorisPhase } from './load.js'
import { OwnRedis, killPhase, lossPhase, racePhase } from './redis.js'
import { type AuthFigures, authPhase, rebindingProbe, slowRegexProbe } from './auth.js'
import { authSection, authStores } from './auth-report.js'
import { beaconPhase, beaconSection, CAP_HEAP_BYTES, CAP_KEYS, MAX_PENDING } from './beacons.js'
import { deepBodyPhase, labelFloodPhase, surfacesSection } from './surfaces.js'
import { drainTlsChecks, drainTlsPhases, drainTlsSection } from './drain-tls.js'
import { INTERVAL_SECONDS, STALL_BOUND_MS, stateFilePhase, stateFileSection } from './state-file.js'

const size = (name: string, fallback: number): number => Number(process.env[name] ?? fallback)
const FUZZ = size('RELIABILITY_FUZZ', 100_000)
const LOAD = size('RELIABILITY_LOAD_SECONDS', 60)
const KILL = size('RELIABILITY_KILL_SECONDS', 15)
const SLOW = size('RELIABILITY_SLOWLORIS', 200)
/** Said in the page's header when the sizes are not the issue's (e.g. a run cut short by time). */
const SIZES_NOTE = process.env.RELIABILITY_SIZES_NOTE ? ` (${process.env.RELIABILITY_SIZES_NOTE})` : ''

const checks: { what: string; ok: boolean }[] = []
const check = (what: string, ok: boolean): void => {
  checks.push({ what, ok })
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`)
}
const started = new Date()

console.log(`fuzz: ${FUZZ} requests`)
const fuzzChild = await startChild()
const fuzz = await fuzzPhase(fuzzChild, FUZZ)
const fuzzServer = await fuzzChild.memory()
await fuzzChild.stop()
check(`${fuzz.requests} fuzzed requests: ${fuzz.fiveHundreds} × 5xx or no answer`, fuzz.fiveHundreds === 0)
check(`${fuzz.requests} fuzzed requests: ${fuzz.nonJson} non-JSON answers`, fuzz.nonJson === 0)
check(`fuzz: ${fuzzServer.errors} unhandled rejections in the server`, fuzzServer.errors === 0)
for (const example of fuzz.examples) console.log(`  ${example}`)

console.log(`load: ${LOAD} s, then slowloris with ${SLOW} sockets`)
const loadChild = await startChild()
const load = await loadPhase(loadChild, LOAD)
const slow = await slowlorisPhase(loadChild, SLOW)
await loadChild.stop()
const [m0, m1, m2] = load.memory
check(`load: ${load.requests} requests, ${load.errors} connection errors or timeouts`, load.errors === 0)
check(
  `load: only 200/204 answers (${JSON.stringify(load.statuses)})`,
  Object.keys(load.statuses).every((s) => s === '200' || s === '204'),
)
check(
  `load: heap after GC ${MB(m0!.heapUsed)} → ${MB(m1!.heapUsed)} → ${MB(m2!.heapUsed)} MB, end within start + 20 MB`,
  m2!.heapUsed < m0!.heapUsed + 20 * 1024 * 1024,
)
check(
  `slowloris: ${slow.closedBy} of ${slow.sockets} sockets closed by the server within ${slow.closedWithin.toFixed(1)} s`,
  slow.closedBy === slow.sockets && slow.closedWithin <= 12,
)
check(
  `slowloris: ${slow.answeredMeanwhile} normal requests answered meanwhile, ${slow.failedMeanwhile} failed`,
  slow.failedMeanwhile === 0 && slow.answeredMeanwhile > 0,
)

console.log('redis: own redis-server, races, kill -9, restart without data')
const redis = await OwnRedis.create()
await redis.start(true)
let races: Awaited<ReturnType<typeof racePhase>>
let kill: Awaited<ReturnType<typeof killPhase>>
let loss: Awaited<ReturnType<typeof lossPhase>>
try {
  races = await racePhase(redis)
  check(
    `races: ${races.sameName.winners} winner of ${races.sameName.attempts} parallel creates of one name`,
    races.sameName.winners === 1,
  )
  check(
    `races: ${races.caseVariants.winners} winner of ${races.caseVariants.attempts} creates of abcd/ABCD/AbCd`,
    races.caseVariants.winners === 1,
  )
  check(
    `races: daily limit ${races.dailyLimit.allowed} allowed, ${races.dailyLimit.refused} refused of ${races.dailyLimit.attempts}`,
    races.dailyLimit.allowed === 300 && races.dailyLimit.refused === 100,
  )
  check(
    `races: ${races.publishes.charges} charge from ${races.publishes.attempts} parallel publishes`,
    races.publishes.charges === 1,
  )
  kill = await killPhase(redis, KILL)
  check(`kill: ${kill.lost} of ${kill.acknowledged} acknowledged writes lost`, kill.lost === 0)
  check(`kill: writes succeed again after the restart (${kill.recoveredAfter.toFixed(2)} s)`, kill.recoveredAfter >= 0)
  check(`kill: failures were 503 only (${kill.otherFailures} others)`, kill.otherFailures === 0)
  loss = await lossPhase(redis)
  check(
    `restart without data: ${loss.unauthorized} × 401 of ${loss.calls} calls, master re-created: ${loss.masterBack}`,
    loss.unauthorized === 0 && loss.masterBack,
  )
} finally {
  await redis.wipe()
}

// Issue 23's attacks on authentication, the test controls and the agents (auth.ts, auth-report.ts).
const AUTH_FLOOD = size('RELIABILITY_AUTH_FLOOD', 1500)
const AUTH_SECONDS = size('RELIABILITY_AUTH_SECONDS', 10)
console.log(`auth: ${AUTH_FLOOD} closed sockets, ${AUTH_SECONDS} s wrong-password flood, per store, before and after`)
const auth: { store: string; before?: AuthFigures; after: AuthFigures }[] = []
for (const { store, config, cleanup } of await authStores(OwnRedis)) {
  const run = async (legacyAuth: boolean) => {
    const child = await startChild({ ...config, legacyAuth })
    try {
      // Before, the login waits for every flooded check: bounded at 60 s so the run ends.
      return await authPhase(child, AUTH_FLOOD, AUTH_SECONDS, legacyAuth ? 60_000 : 300_000)
    } finally {
      // Before, a graceful exit would first run every queued scrypt (libuv joins its pool): minutes.
      if (legacyAuth && child.process.exitCode === null) {
        const exited = new Promise((resolve) => child.process.once('exit', resolve))
        child.process.kill('SIGKILL')
        await exited
      } else {
        await child.stop()
      }
    }
  }
  try {
    const after = await run(false)
    auth.push({ store, ...(store === 'MemoryStore' ? { before: await run(true) } : {}), after })
  } finally {
    await cleanup()
  }
}
for (const { store, after } of auth) {
  // The server's part: a connect that waited for a SYN resent after the kernel dropped it (accept queue full) is reported apart.
  const { ms, connectMs, status } = after.afterFlood
  check(
    `auth ${store}: valid uncached login answered ${(ms - connectMs).toFixed(0)} ms after its connect (status ${status}; connect ${connectMs.toFixed(0)} ms) after ${after.floodSockets} closed sockets, < 1 s`,
    status === 200 && ms - connectMs < 1000,
  )
  check(
    `auth ${store}: valid GETs at ${(after.duringFlood / after.baseline).toFixed(2)} of their rate during a wrong-password flood, >= 0.8`,
    after.duringFlood >= 0.8 * after.baseline,
  )
  check(
    `auth ${store}: ${after.guesses[401] ?? 0} guesses checked from one IP in ${after.guessSeconds} s, <= 10 a minute`,
    (after.guesses[401] ?? 0) <= 10,
  )
}
const rebindingChild = await startChild({ admin: true })
const rebinding = await rebindingProbe(rebindingChild)
await rebindingChild.stop()
check(
  `DNS rebinding: POST /__admin/seed ${rebinding.seed}, GET /__admin/snapshot ${rebinding.snapshot} (403 both)`,
  rebinding.seed === 403 && rebinding.snapshot === 403,
)
const slowRegex = await slowRegexProbe()
check(`slow agents regex: ${slowRegex.refused}`, slowRegex.refused === 'not-linear')

// Issue 23's beacon attacks (beacons.ts, on the flood code of benchmark/lib/beacon-flood.ts).
const BEACON_SECONDS = size('RELIABILITY_BEACON_SECONDS', 30)
const BACKLOG_SECONDS = size('RELIABILITY_BACKLOG_SECONDS', 10)
console.log(`beacons: ${BEACON_SECONDS} s random-value floods, ${BACKLOG_SECONDS} s of full beacon load on PostgreSQL`)
const beacons = await beaconPhase(OwnRedis, BEACON_SECONDS, BACKLOG_SECONDS)
{
  const { memoryPooled: p, redis: r, backlog } = beacons
  check(
    `beacons MemoryStore: heap +${MB(p.heapBytes)} MiB after ${p.events} random-value visits (1,000 visitor ids), within the cap's worth (${MB(CAP_HEAP_BYTES)} MiB)`,
    p.heapBytes <= CAP_HEAP_BYTES && p.rows.geo <= 1001 && p.rows.system <= 1001,
  )
  check(
    `beacons RedisStore: ${r.keys} keys after ${r.events} random-value visits, within the cap's worth (${CAP_KEYS})`,
    r.keys <= CAP_KEYS,
  )
  check(
    `beacons RedisStore: longest command of an analytics read after the flood ${(r.longestMicros / 1000).toFixed(2)} ms (${r.longestCommand}), <= 10 ms`,
    r.longestMicros <= 10_000,
  )
  if (backlog)
    check(
      `beacons PostgresStore: at most ${backlog.after.mostPending} recordings pending under ${BACKLOG_SECONDS} s of full load, <= maxPendingRecordings (${MAX_PENDING})`,
      backlog.after.mostPending <= MAX_PENDING,
    )
}

// Issue 34: deep bodies against the journal of a --admin server, and a label flood against /metrics.
console.log('surfaces: 5,000- and 100,000-deep bodies on every route; a casing-and-method flood')
const surfacesChild = await startChild({ admin: true, metrics: true })
const deep = await deepBodyPhase(surfacesChild)
const flood = await labelFloodPhase(surfacesChild)
await surfacesChild.stop()
check(
  `deep bodies: ${deep.requests} requests, server alive after each round (${JSON.stringify(deep.statuses)})`,
  deep.alive && deep.exitCode === null,
)
check(
  `label flood: ${flood.requests} requests took /metrics from ${flood.seriesBefore} to ${flood.seriesAfter} lines, ${flood.foreignCasings} foreign casings`,
  flood.foreignCasings === 0 && flood.seriesAfter <= flood.seriesBefore * 3,
)

// Issue 34: HTTPS under idle TLS sockets, and the drain under keep-alive load (drain-tls.ts).
const drainTls = await drainTlsPhases()
for (const { what, ok } of drainTlsChecks(drainTls)) check(what, ok)

// Issue 34's state file at 50,000 sites (state-file.ts).
const stateFile = await stateFilePhase()
check(
  `state file: oldest acknowledged write lost to kill -9 ${stateFile.loss.oldestLostSeconds.toFixed(2)} s, <= ${INTERVAL_SECONDS} s`,
  stateFile.loss.oldestLostSeconds <= INTERVAL_SECONDS,
)
check(
  `state file: longest /healthz answer during write-backs ${stateFile.stall.maxDuringWriteBackMs.toFixed(0)} ms, <= ${STALL_BOUND_MS} ms`,
  stateFile.stall.maxDuringWriteBackMs <= STALL_BOUND_MS,
)

const failed = checks.filter((c) => !c.ok)
const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(0)
const doc = `# Reliability

A bounded, loopback-only run anyone can repeat. It starts its own server
processes (\`startServer\` from this build, MemoryStore unless said otherwise)
and its own \`redis-server\` on a free port in a temporary directory
(\`--appendonly yes --appendfsync always\`), and writes this page.

\`\`\`
npm run reliability
\`\`\`

Sizes can be set with \`RELIABILITY_FUZZ\` (requests), \`RELIABILITY_LOAD_SECONDS\`,
\`RELIABILITY_KILL_SECONDS\`, \`RELIABILITY_SLOWLORIS\` (sockets), \`RELIABILITY_AUTH_FLOOD\`
(closed sockets), \`RELIABILITY_AUTH_SECONDS\`, \`RELIABILITY_BEACON_SECONDS\` and
\`RELIABILITY_BACKLOG_SECONDS\`; \`DATABASE_URL\` adds PostgresStore. CI does not
run it; the unit tests cover the same rules at small sizes.

Last run: ${started.toISOString().slice(0, 19)}Z, ${seconds} s, Node ${process.version},
${cpus().length} CPUs (shared with other work), sizes ${FUZZ} / ${LOAD} s / ${KILL} s / ${SLOW} / auth ${AUTH_FLOOD} sockets, ${AUTH_SECONDS} s / beacons ${BEACON_SECONDS} s, backlog ${BACKLOG_SECONDS} s${SIZES_NOTE}.
Result: ${failed.length === 0 ? 'every check passed' : `${failed.length} check(s) FAILED`}.

## Checks

| | check |
|---|---|
${checks.map((c) => `| ${c.ok ? 'pass' : '**FAIL**'} | ${c.what} |`).join('\n')}

## Fuzzed requests

Requests generated by the HTTP fuzz suite's generators (every route and
unknown paths; hostile methods, paths, queries, bodies, content types,
encodings, credentials and browser headers), ${FUZZ / 2} aimed at real routes
and ${FUZZ / 2} anywhere, 32 at a time over keep-alive connections.

- ${fuzz.requests} requests in ${fuzz.seconds.toFixed(0)} s (${(fuzz.requests / fuzz.seconds).toFixed(0)} req/s)
- answers that were 5xx or missing: ${fuzz.fiveHundreds}; non-JSON answers: ${fuzz.nonJson}
- sent again on a new connection because the server had closed the reused one (413 before the body was read, or a framing error): ${fuzz.resent}
- statuses: ${Object.entries(fuzz.statuses)
  .map(([s, n]) => `${s} × ${n}`)
  .join(', ')}
- server heap after GC at the end: ${MB(fuzzServer.heapUsed)} MB, RSS ${MB(fuzzServer.rss)} MB

## Mixed load and memory

16 connections for ${LOAD} s, each cycling: create a site, read it, read a
fixed site, list created sites, read /agents, delete the site.

- ${load.requests} requests, ${load.perSecond.toFixed(0)} req/s; statuses ${JSON.stringify(load.statuses)}
- server memory after a full GC:

| sample | heap used (MB) | RSS (MB) |
|---|---:|---:|
${load.memory.map((m) => `| ${m.at} | ${MB(m.heapUsed)} | ${MB(m.rss)} |`).join('\n')}

## Slowloris

${SLOW} sockets each sending its headers a byte every 500 ms. The server's
headers deadline is 10 s (checked every second).

- closed by the server: ${slow.closedBy} of ${slow.sockets}, the last after ${slow.closedWithin.toFixed(1)} s
- normal requests answered meanwhile: ${slow.answeredMeanwhile} (failed: ${slow.failedMeanwhile})

## Two instances on one Redis

Two server processes share one RedisStore prefix; parallel requests alternate between them.

- one name, ${races?.sameName.attempts} parallel creates: ${races?.sameName.winners} winner
- \`abcd\`, \`ABCD\`, \`AbCd\`, ${races?.caseVariants.attempts} parallel creates: ${races?.caseVariants.winners} winner
- daily limit (300), ${races?.dailyLimit.attempts} parallel calls: ${races?.dailyLimit.allowed} allowed, ${races?.dailyLimit.refused} refused with 429
- ${races?.publishes.attempts} parallel publishes of one site: ${races?.publishes.charges} charge

## Redis killed under write load

${
  kill
    ? `${KILL} s of account creations, 16 at a time; Redis is killed with SIGKILL
after a third of it and restarted from its AOF ${kill.outageSeconds} s later.

- attempts: ${kill.attempts}; acknowledged (204): ${kill.acknowledged}; 503 during the outage: ${kill.unavailable}; other failures: ${kill.otherFailures}
- acknowledged writes missing afterwards: **${kill.lost}**
- first acknowledged write ${kill.recoveredAfter.toFixed(2)} s after Redis was back`
    : 'not run'
}

## Redis restarted without its data

${
  loss
    ? `Redis restarts empty (no persistence). After the verified-credential cache's
10 s, ${loss.calls} calls with a master's credentials: ${loss.unauthorized} × 401,
${loss.succeeded} × 200; the master record is back in Redis: ${loss.masterBack}.`
    : 'not run'
}
${stateFileSection(stateFile)}`
writeFileSync(
  fileURLToPath(new URL('../../docs/RELIABILITY.md', import.meta.url)),
  doc +
    beaconSection(beacons) +
    authSection({ auth, rebinding, slowRegex, flood: AUTH_FLOOD, seconds: AUTH_SECONDS }) +
    surfacesSection(deep, flood) +
    drainTlsSection(drainTls),
)
console.log(
  `\n${failed.length === 0 ? 'all checks passed' : `${failed.length} check(s) failed`}; docs/RELIABILITY.md written (${seconds} s)`,
)
process.exit(failed.length === 0 ? 0 : 1)
