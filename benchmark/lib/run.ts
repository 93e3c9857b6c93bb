/**
 * `npm run bench`: runs every benchmark in benchmark/ and writes
 * docs/PERFORMANCE.md from the `#figure` lines they print (report.ts).
 *
 * A benchmark is any benchmark/*.ts that no other file in benchmark/ names
 * in quotes as a path (`'./x.js'`, `'benchmark/x.ts'`): files imported or
 * forked by another are its helpers. So a new benchmark is picked up by being there, with no
 * edit here. Each runs in its own `tsx` process, one after another, with the
 * environment of this one; a benchmark that needs REDIS_URL or DATABASE_URL
 * skips that part (or itself) when it is unset and says so. A failing
 * benchmark is reported in the document and does not stop the others.
 *
 *   npm run bench                     (builds first: several benchmarks load dist/)
 *   npx tsx benchmark/lib/run.ts api scale   only the benchmarks named
 *   npx tsx benchmark/lib/run.ts --list      which files count as benchmarks
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import type { Figure } from './report.js'

const dir = fileURLToPath(new URL('..', import.meta.url))
const root = fileURLToPath(new URL('../..', import.meta.url))
const OUT = `${root}docs/PERFORMANCE.md`
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 1800) * 1000

/** The entry points: benchmark/*.ts that no sibling names. */
function benchmarks(): string[] {
  const files = readdirSync(dir).filter((f) => /\.(ts|mjs|js)$/.test(f))
  const sources = new Map(files.map((f) => [f, readFileSync(`${dir}${f}`, 'utf8')]))
  return files
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .filter((f) => {
      const base = f.replace(/\.ts$/, '')
      // Named as a module or script path in quotes: './x.js', "benchmark/x.ts", `./x.mjs`.
      const named = new RegExp(
        `['"\`](?:\\./|benchmark/)${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:js|ts|mjs)['"\`]`,
      )
      return ![...sources].some(([other, text]) => other !== f && named.test(text))
    })
    .sort()
}

interface Outcome {
  file: string
  figures: Figure[]
  status: 'ok' | 'failed'
  seconds: number
  /** Lines saying what was skipped, as the benchmark printed them. */
  skipped: string[]
  tail: string[]
}

function run(file: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const start = performance.now()
    const figures: Figure[] = []
    const skipped: string[] = []
    const lines: string[] = []
    const child = spawn(process.execPath, ['--import', 'tsx', `${dir}${file}`], {
      cwd: root,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS)
    let pending = ''
    const onData = (chunk: Buffer, stream: NodeJS.WriteStream) => {
      stream.write(chunk)
      pending += chunk.toString('utf8')
      const parts = pending.split('\n')
      pending = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        if (line.startsWith('#figure ')) {
          try {
            figures.push(JSON.parse(line.slice('#figure '.length)) as Figure)
          } catch {
            lines.push(`(unreadable figure line: ${line})`)
          }
        } else if (/skipp/i.test(line)) skipped.push(line.trim())
      }
    }
    child.stdout.on('data', (c: Buffer) => onData(c, process.stdout))
    child.stderr.on('data', (c: Buffer) => onData(c, process.stderr))
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({
        file,
        figures,
        skipped,
        status: code === 0 ? 'ok' : 'failed',
        seconds: (performance.now() - start) / 1000,
        tail: lines.filter((l) => !l.startsWith('#figure ') && !/^npm warn/.test(l)).slice(-8),
      })
    })
  })
}

/**
 * Whether the figure meets its target, `>= x` or `<= x`: against `targetOf`
 * when given; else against the value when the bound carries a unit
 * (`<= 20 ms`), the ratio when there is one, and the value otherwise.
 */
function verdict(f: Figure): string {
  const match = /^\s*(>=|<=|≥|≤)\s*([\d.]+)\s*([a-zA-Zµ%/]*)/.exec(f.target ?? '')
  if (!match) return ''
  const of = f.targetOf ?? (match[3] || f.ratio === undefined ? 'value' : 'ratio')
  const measured = of === 'ratio' ? f.ratio : f.value
  if (measured === undefined) return ''
  const bound = Number(match[2])
  const ok = match[1] === '>=' || match[1] === '≥' ? measured >= bound : measured <= bound
  return ok ? 'met' : '**not met**'
}

const cell = (v: unknown): string =>
  v === undefined || v === null ? '' : String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ')
const num = (v: number | undefined): string =>
  v === undefined ? '' : v.toLocaleString('en-US', { maximumFractionDigits: 3 })

function document(outcomes: Outcome[], command: string, started: Date, load: number[]): string {
  const cpus = os.cpus()
  const out: string[] = []
  out.push('# Performance', '')
  out.push(
    'Generated by `npm run bench` (benchmark/lib/run.ts); do not edit by hand. Every figure is measured beside its anchor in the same run and, where it says so, in interleaved rounds, so the ratio is the number to read: this machine is shared, absolute figures drift from run to run. No test depends on a timing.',
    '',
  )
  out.push('## Machine and command', '')
  out.push(
    `- CPU: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} logical cores (${os.availableParallelism?.() ?? cpus.length} available)`,
  )
  out.push(`- Memory: ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${os.type()} ${os.release()} ${os.arch()}`)
  out.push(`- Node ${process.version}`)
  out.push(`- Load average when the run started: ${load.map((l) => l.toFixed(2)).join(', ')} (1, 5, 15 min)`)
  out.push(
    `- Started ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC; command: \`${command}\`${process.env.REDIS_URL ? `, REDIS_URL set` : ', REDIS_URL not set'}${process.env.DATABASE_URL ? ', DATABASE_URL set' : ', DATABASE_URL not set'}`,
    '',
  )
  out.push('## Figures', '')
  const all = outcomes.flatMap((o) => o.figures.map((f) => ({ ...f, file: o.file })))
  const groups = [...new Set(all.map((f) => f.group))]
  for (const group of groups) {
    out.push(`### ${group}`, '')
    out.push('| Figure | Value | Anchor (same run) | Ratio | Target | | Notes | Benchmark |')
    out.push('|---|---:|---|---:|---|---|---|---|')
    for (const f of all.filter((x) => x.group === group)) {
      const anchor =
        f.anchor === undefined
          ? ''
          : `${f.anchor}${f.anchorValue === undefined ? '' : `: ${num(f.anchorValue)} ${f.unit}`}`
      out.push(
        `| ${cell(f.name)} | ${num(f.value)} ${cell(f.unit)} | ${cell(anchor)} | ${num(f.ratio)} | ${cell(f.target)} | ${verdict(f)} | ${cell(f.note)} | ${f.file} |`,
      )
    }
    out.push('')
  }
  out.push('## Benchmarks run', '')
  out.push('| Benchmark | Status | Seconds | Figures | Skipped |')
  out.push('|---|---|---:|---:|---|')
  for (const o of outcomes)
    out.push(
      `| benchmark/${o.file} | ${o.status} | ${o.seconds.toFixed(0)} | ${o.figures.length} | ${cell(o.skipped.join('; '))} |`,
    )
  const failed = outcomes.filter((o) => o.status === 'failed')
  for (const o of failed) out.push('', `**benchmark/${o.file} failed.** Its last lines:`, '', '```', ...o.tail, '```')
  out.push('', '## Decisions', '')
  out.push(
    "- **No ETag or 304 on API answers.** They are per caller, authenticated, and change with every write; the callers are programs that do not send `If-None-Match`; a body-hash ETag costs a hash of every answer and saves nothing, since the answer must be built to be hashed. Answers are serialized directly (one `JSON.stringify`, one `res.end`), compact whatever the host app's `json spaces` setting (lib/http/reply.ts).",
  )
  out.push(
    '- **API throughput** is read as req/s of autocannon against one server process per variant, and as server CPU per request (steadier on a shared machine); ratios are medians of per-round ratios.',
  )
  out.push(
    "- **The CLI rows (benchmark/cli-server.ts) average 3 processes per server.** How fast a Node process serves requests is partly a draw: of six identical silent CLIs on Node 20 (2026-11-30), some spent about 40 µs of CPU per request and others 50–65, the same in every round. In the slow ones `process.nextTick`, which Node's streams and http code call several times a request, took about ten times its usual self time. `%DebugPrint(process.nextTick)` showed why: the property definitions of its `tickObject` literal were megamorphic. A full GC while no tick is queued collects that literal's maps, and Node 20's V8 turns this kind of feedback megamorphic on any change of map. Keeping one TickObject alive (caught with an `async_hooks` init hook, in an experiment) kept 8 of 8 processes monomorphic and cut the mean CPU per request by about 5 %. Since 2026-12-01 every server keeps one (lib/server/shape-pins.ts), caught with `executionAsyncResource()` inside a tick, which needs no hook: after 45 s idle, an unpinned CLI's `nextTick` had 3 of its 4 literal stores megamorphic and a pinned one none. Node 22 and 24 stayed monomorphic without it, and their processes spread as well (37–65 µs on Node 22). With one process per server, one draw could move the defaults-to-silent ratio by a fifth (0.78–0.94 over five runs). Over four to six processes per server (four runs), the defaults cost 3–9 µs of CPU per request more than silent (about 3 for the access line and 3 for the metrics where they were measured apart): a CPU ratio of 0.86–0.94, still short of 0.95. Later that day the defaults were made about 1 µs cheaper (the text a line's method, route and status decide is made once, a metric's series key once, a store call timed by awaiting it), and benchmark/defaults-inprocess.ts measures what they add in one process, where both variants share every draw: about 2 µs per request, against 55–75 µs of CPU for a whole silent request over HTTP here, so 0.96–0.97 by CPU. `perf` over six processes per variant found a second draw besides `nextTick`'s: in some processes V8 adds ServerResponse's properties through its runtime (map transitions, about 1–1.6 µs per request), whichever the variant. In the run of 2026-11-30 23:38 UTC, on the same Intel host when it was quiet, a silent request cost 40.6 µs of CPU over HTTP and the defaults added 1.18 µs in process (0.97 by CPU), while the HTTP rows read 0.93. Since 2026-12-01 the CLI's batch encodes each line into a 64 KB buffer as it arrives instead of joining the waiting lines at the flush: in a CPU profile over HTTP (an AMD EPYC host, 2 cores) the line's batching and write went from 0.54 to 0.38 µs. On that host the processes still spread: in three runs of cli-server.ts, silent CLIs spent 54–57 µs of CPU per request and startServer's 52–64, so the pin did not end the draws; what else draws is not found. Time draws as well: on that host the same process spent about 55 µs of CPU per request in one 3-second run and about 100 in the next, often every server at once, while a fixed loop in a lone process kept its speed; loading a defaults CLI and a silent one at the same time on one pinned CPU did not steady the ratio (silent against silent read 0.91 and 1.06 in two runs of five pairs). So since 2026-12-01 the CLI rows include a control, a second set of silent CLIs measured as one more variant: its distance from 1 is the noise of the defaults-to-silent figure in that run (1.18 in the first run with it, per-round 0.87–1.38, while the defaults read 0.89).",
  )
  out.push(
    "- **RedisStore against MemoryStore is judged at 100 connections.** At 10, each connection waits for its answer before asking again, so the one Redis round trip per read (about 17 µs of wall time here, mostly redis-server waiting for one of the two cores that autocannon and the server also use) lengthens every request, and the ratio follows latency while the server CPU per request stays within a few percent of MemoryStore's. At 100 connections (as in fastify's own benchmarks) the server is never idle and the ratio measures its work. Both rows are reported.",
  )
  out.push(
    "- **Bare Express costs about 9 times raw node:http per request here** (about 90 against 10 µs of CPU). Most of it is Express's `Object.setPrototypeOf` on every request and response: a raw node:http handler that does only that went from 10 to 36 µs per request on this machine (Node 20). Every Express app pays it, apiRouter's host included, so the API's ratios are to bare Express.",
  )
  out.push(
    "- **startServer does not pay Express's prototype change.** Its Node server is made with `IncomingMessage` and `ServerResponse` classes whose prototypes are the Express app's `app.request` and `app.response` (lib/server/express-prototypes.ts), so Express's `Object.setPrototypeOf` on each request finds them set and changes nothing. GET of one site through startServer went from about 80 to about 33 µs of CPU, about half of bare Express's; the CLI and the test double get it, an app that mounts apiRouter in its own Express app does not (its ratio to bare Express is the API rows'). Until 2026-12-01 those objects were still dictionaries (slow properties) from birth: V8 sizes a constructor's objects by the `this.x =` assignments in its body, the wrappers had none, and Node's init overflowed the few slots they got. The wrappers now carry 32 such assignments in a branch that never runs; requests and responses keep fast properties to the end of the answer (test/server/express-prototypes.ts), and a GET of one site allocates about 15 KB instead of 22 (V8's sampling heap profiler, minor GCs included).",
  )
  out.push(
    "- **The defaults are also counted in instructions (benchmark/cli-instructions.ts).** Under valgrind's callgrind a count does not move with the machine's load, where the timed CLI rows could not tell 5 % apart on the 2-core AMD host (their control read 0.93–1.18). On 2026-12-01, with 40,000 requests of warm-up and 5,000 counted in each of two processes per variant, the silent CLI's main thread ran 140,000–146,000 instructions a request and the defaults' 162,000–173,000: about 25,000 more, some 4–5 µs at that thread's pace, which matches the 6 µs the timed rows had shown (70.6 against 64.2 µs of CPU) better than the 2 µs measured in one process, where every cache is warm and every call site sees one shape. Where they go, by callgrind's names: the line's JSON escaping and number printing, joining and flattening its text, megamorphic property loads and stores, `setHeader`'s lowercasing of `X-Request-Id`, and about 4,000 in JIT code that callgrind cannot name. The kernel's work is not counted, so the ratio is of user space only. The same counts showed the credential cache's expiry every 10 s: each one held every request of a steady client behind one scrypt, and in the three CLIs traced with `--trace-deopt` the first one deoptimized most of Node's http and stream functions at once. Since then a verdict used past half its TTL is renewed in the background (lib/engine/auth/masters.ts): at 3,000 requests/s on the CLI p99 went from 141–166 ms to 14 ms, and the CLI rows send one request before each round so that a round does not start with a check.",
  )
  out.push(
    "- **An access line and a metric cost a few µs per request, whatever the request.** In process, on a ServerResponse that is never sent (best of 10 rounds of 100,000, on a host then about three times slower than a quiet one): the request id, timer, close listener and histogram cost 0.76 µs; with a pino line as well 2.73; with the CLI's hand-formatted line instead (lib/http/access-line.ts, byte for byte pino's) 1.68. Over HTTP the CLI also lost a layer: startServer observes a request before Express sees it, not as Express's first layer, and the CLI writes its lines in batches of up to 64 KB (one write costs about 2 µs here at any size up to some 60 KB). With those, the defaults read 0.88–0.96 of the silent CLI in alternating runs on this machine (0.76–0.80 before, issue 38); the bench's one run is the figure above. Beacons are logged at debug only: metrics count them (`http_request_duration_seconds{route=\"/collect\"}`, `mobisite_collector_events_total`).",
  )
  out.push(
    "- **What the observation costs without the CLI around it (benchmark/observation-cost.ts).** Since 2026-12-01 the CLI rows and these run with every server pinned to one CPU and autocannon on the other (benchmark/lib/cpu.ts); unpinned, the server's syscall time rose with the client's sleeps. node:http answering the same JSON is priced alone, with the observation done the standard way (an X-Request-Id, a pino line to an asynchronous destination, a prom-client histogram) and with mobisite's own as the CLI builds it. In a run on the 2-core AMD host (2026-12-01 19:05 UTC, 4 rounds of 3 s): node:http 23.0 µs of CPU per request; the standard way added 12.2 (the pino line 8.1 of them), mobisite's 6.6; the CLI's defaults added 15.1 to its 43.6 silent (0.743 by CPU), where mobisite's observation alone would give 0.869, and 0.95 allows 2.3 µs. Taken apart on node:http (pinned; a server's rounds agreed within about 1 µs): the header 0.8 µs, the request id, route note and close listener 1.2, the histogram 0.4, the access line 3.5-5. A CPU profile of that server puts 1.3 µs of the line in formatting it, 0.65 in encoding it into the batch and 0.6 more in garbage collection; the line costs about 1 µs in process (defaults-inprocess.ts), so over HTTP it costs three to four times its microbenchmark. A batch of 8 KB instead of 64, or one batch buffer reused instead of a new one at each flush, changed nothing (27.7-29.2 µs against 27.7). One shared close listener with the note as a class, and the timed store as a plain object instead of a Proxy, did not change the instruction count (callgrind, 4 processes each, 153.2-154.7k a request both ways), so neither was kept. So 0.95 needs the whole observation within about a twentieth of a silent request, less than the access line alone costs over HTTP on either host here; what the CLI adds beyond the observation alone (15.1 against 6.6 µs in that run) is the part left to find. The CLI's own processes spread too much to price it (a CLI's rounds ranged over 10-20 µs): with the timed store, Node's default metrics, or both turned off in a scratch build, the defaults cost 54.6-56.2 µs against 57.1-61.0 with both on and 43.8-46.3 silent, two processes each.",
    "- **Access lines are formatted in bunches (since 2026-12-01, lib/http/access-line.ts).** The CLI keeps each answer's line fields and the time it closed, and formats the lines 256 at a time, every 200 ms, or before any other line reaches stdout, so lines stay in order and none waits longer than it did. Over HTTP a line formatted between two answers cost about three to four times what it costs in a loop; formatted in a bunch, the same work runs while the formatter is warm. Pinned on the AMD host (2026-12-01 22:00 UTC, 5 rounds of 3 s, before and after in one run): mobisite's observation on node:http went from 7.2 to 4.1 µs of CPU per request, and the CLI's defaults from 57.0 to 53.0 against 46.5 silent (0.816 to 0.877 by CPU). Split into user and system time (/proc, 5 rounds of 4 s), the defaults' remaining cost is user time (about +9 µs against silent, the access log alone about +3 and the metrics alone about +4.5; system time within 1.5). With the timed store, Node's default metrics, or both turned off, the metrics-only CLI moved by 0.6-1.8 µs, within that host's noise (silent read 28.5 and 31.2 µs of user time in two runs).",
    "- **The access line's time, and `performance`, without their slow paths (since 2026-12-02).** Counted per function with callgrind (the CLI's defaults, 20,000 requests warm-up then 5,000 counted, the AMD host, 2026-12-02): each line's `Date.now()` printed with `String` took V8's double-to-shortest-text path (about 800 instructions with its allocation), since a time in milliseconds is too large for a small integer; it is now printed from the millions, kept, and six digits of a small integer (`timeText`). And every read of the global `performance` ran Node's getter for it (about 400 instructions a request, four or more reads); lib/http/observe.ts and the timed store import it from `node:perf_hooks`. Both removals show in the per-function counts; the totals did not separate from their spread (the unchanged CLI read 160.6k and 167.4k instructions a request in two processes, the changed one 161.7k and 162.4k). Tried and not kept: quoting the line's id, path and user without `JSON.stringify` when they are plain ASCII. It removed the serializer's 2.3k instructions but its check, the extra concatenations and the flattening they caused added about 1.8k back.",
    "- **Strings made once rather than per request (since 2026-12-02, second stop).** Counted per function with callgrind as above, against the dump of the unchanged defaults: the request id is quoted as it is, since the ids the observer gives out are only characters JSON writes unescaped (a test sends every ASCII character in X-Request-Id); each master account's `,\"user\":…` text is kept (up to 1,024 accounts; cached verdicts give the same string, so its hash is made); apiRouter keeps one route label per route and mount spelling (up to 16 spellings), where a label joined per request was flattened and hashed again by the access line, the histogram and the quiet set; and the line's small numbers come from kept texts of 0-999 and three zero-padded digits, not `String`. Together about 3k instructions a request less in the serializer (1.5k), hashing, string-table lookups, equality and `toLowerCase` (0.8k) and number printing with its scavenges (0.5k). Tried and not kept: `x-request-id` in lower case for `setHeader` (Node lower-cases the name and internalizes it on every call): about 0.5k, inside the spread, for a change of the header's spelling on the wire.",
    "- **No cons strings where C++ or a regex would flatten them (since 2026-12-02, third stop).** Counted per function with callgrind as above (one process at a time, the AMD host): request ids are slices of one flat text of 1,296 ids made at once, where an id joined per request was a cons string that Node's check of a header value (a regex) sent through V8's runtime to be flattened, about 1,400 instructions a request; a path with nothing to escape is written as it is, between quotes kept in the line's pieces, where `JSON.stringify`'s call cost about 1,100 (the try of the morning also quoted the id and user and joined the quotes on, which gave most of it back; here nothing is joined, and a path that needs an escape is still the builtin's); and a bunch of 256 lines goes out as one text in one write instead of one write per line, each of which was a call into C++ that flattened and encoded its line. Together about 4k instructions a request less; the drain's tracker also takes one shared `close` listener instead of a `once` wrapper per request (silent too). Tried and not kept: `x-request-id` in lower case again (only the string-table lookup went, about 270: V8's `toLowerCase` costs the same on a name already in lower case); the line's pieces joined by an array instead of concatenated (equal in a callgrind microbenchmark); the start of a line kept while its level and millisecond repeat (under callgrind no two lines share a millisecond, so nothing showed it paying). The silent CLI spends about a third of its CPU in the kernel (user and system time from /proc, pinned, 3 rounds of 5 s: 17-23 of 50-67 µs a request), which the defaults barely add to, so a user-space ratio of 0.90 is about 0.93 by CPU.",
  )
  out.push(
    "- **Where the defaults' instructions go, and two tries at the line that lost (since 2026-12-02, fourth stop).** With node's `--perf-basic-prof`, callgrind's JIT addresses map to JS functions, and the two split rows above count the access log and the metrics apart. At 85488bc what both share (the request id and its `X-Request-Id` header, the observer, its close listener and timer) was about 5,700 instructions a request, the log's own about 6,600 and the metrics' own about 3,700. The header alone is about 2,200, all in Node: `setHeader` stores under `name.toLowerCase()`, a new string each time, which V8 hashes and looks up in its string table through the keyed-store slow path (about 850), and checks the name and the value with two regexes (about 570). Writing a line's text out (V8's joins, flatten and UTF-8 encode) is about 3,400, and timing the store call about 1,300, of which one promise hop is about 450. 0.95 of a silent request (about 137,000) allows about 7,200 in all, and the work in Node and V8 alone (the header, the line's text written out, the promise hop, adding and emitting the listener) comes to about 6,500 while the header, the line and both histograms are kept. So tuning mobisite's own code cannot reach the goal. Tried and not kept: putting each line's bytes into the batch from JS (a JS byte loop runs at about 1.8 ns a byte here; a line took 2.3 times as long as the joins, and the request counted about 10,000 instructions more); fewer, longer joins (about 15 % faster in a loop, no change in the request's count).",
    "- **The matcher against is-mobile, on a corpus nobody tuned to.** On the public list (crawler-user-agents, random-useragent, top-user-agents: 2,918 UAs, 2,118 bots) almost all of the matcher's time was V8's case-insensitive scan for the 13 names, and that scan costs about twice as much per character on bot text (lowercase words and URLs, where nearly every character could start a name) as on browser UAs (digits, capitals and punctuation, which its Boyer–Moore lookahead skips): the matcher was 2.0–2.2× is-mobile there, 2.5–3.0× on user-agents. Since 2026-11-30 a UA not shaped like a browser's (`Mozilla/5.0 (` and a platform that starts with a capital or `i`) is scanned by Wu–Manber instead (lib/agents/skip-scan.ts): windows of 4 code units moved by a table of two-character blocks, so about one character in three is read, each candidate confirmed by a sticky copy of the same regex, which keeps the leftmost match and its end exact; after 8 refused candidates the regex takes the rest of the UA, so near-miss floods cost what they did. Browser-shaped UAs keep the regex. On the Intel host that day (process CPU time, best of 15 rounds): bots went from 2.1× to 2.9–3.0× is-mobile, the public list from 1.96× to 2.57–2.65×, the list's browsers stayed at 1.9–2.0×, and user-agents' rows went from 2.41× to 2.34–2.38× (the two reads that classify a UA). A skip scan for every UA (tried earlier) reached 3.0× on the public list but was 30–58 % slower on browser UAs, since reading each character with `charCodeAt` costs more than the regex's whole scan of them: hence the split. Tried and not kept: lowercasing the UA and scanning case-sensitively (`toLowerCase` adds about 70 ns), the names factored by first letter, 30 random orders (within 2 %), warming each regex on a typical desktop UA, and `startsWith('Mozilla/5.0 (')` to start the regex after that prefix (on Node 20 the check cost more than the 13 characters it saved).",
  )
  out.push(
    "- **mobileRedirect's cost** is judged in-process: an Express app with `app.use(mobileRedirect(...))` against the same app without it, both dispatched by Express, set against bare Express's CPU per request over HTTP. Over HTTP the per-round ratios spread by ±10–20 % on this machine, about ten times the middleware's cost, so those rows carry their quartiles and no target.",
  )
  out.push(
    "- **Most traffic's slope target applies where a ranking can avoid reading every site.** MemoryStore scores sites in all-time visit order and stops once no later site's all-time visits can reach the 10th score: about 20 sites on Zipf-distributed traffic, a few hundred when the history is one day longer than the period, 10 when the period holds every visit. When every site has about the same visits over a history twice the period, no exact ranking can skip a site without keeping per-period totals, so it sums every site's days (linear, about 13 ms at 100k sites here). That row is reported without a slope target; it still has the ≤ 20 ms one.",
  )
  out.push(
    "- **Object shapes on hot paths (Node 20's V8).** A site record is built with `Object.assign({}, props)` and plain stores, not `{ ...props, site_name, … }`: an object spread followed by literal properties cost about 20 µs per object against 0.3 µs, which made it the costliest step of Create Site (lib/engine/rules/sites.ts). The creation props are kept as the record's `initial` without a copy, since every store copies or serialises what it is given. MasterApi's methods are made with one `Object.fromEntries`, not a store per key: an object given more than a dozen properties by keyed stores becomes a hash table, which every method lookup would then pay for (lib/engine/api/master-api.ts).",
  )
  out.push(
    "- **Scale figures** report the process's CPU time beside the wall time: on a shared machine a process waits for a core, which only the wall time counts. Slopes are log-log between sizes (1 = linear).",
    '',
  )
  return out.join('\n')
}

const listOnly = process.argv.includes('--list')
const only = process.argv.slice(2).filter((arg) => arg !== '--list')
if (listOnly) {
  console.log(benchmarks().join('\n'))
  process.exit(0)
}
const started = new Date()
const load = os.loadavg()
const files = benchmarks().filter((f) => only.length === 0 || only.includes(f.replace(/\.ts$/, '')))
console.log(`benchmarks: ${files.join(', ')}`)
if (!process.env.REDIS_URL) console.log('REDIS_URL not set: RedisStore parts will be skipped')
if (!process.env.DATABASE_URL) console.log('DATABASE_URL not set: PostgresStore parts will be skipped')
const outcomes: Outcome[] = []
for (const file of files) {
  console.log(`\n===== benchmark/${file}`)
  outcomes.push(await run(file))
}
const command = only.length ? `npx tsx benchmark/lib/run.ts ${only.join(' ')}` : 'npm run bench'
writeFileSync(OUT, `${document(outcomes, command, started, load)}\n`)
console.log(
  `\nwrote ${OUT}: ${outcomes.reduce((n, o) => n + o.figures.length, 0)} figures from ${outcomes.length} benchmarks${outcomes.some((o) => o.status === 'failed') ? '; some FAILED, see the document' : ''}`,
)
