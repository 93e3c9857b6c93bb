/**
 * Start-up: how long `npm start` (after a build) takes to answer its first
 * request, beside a bare Express server started the same way; and how long
 * importing the package root takes, beside importing express alone. Each
 * measurement is a fresh process; variants alternate, medians are reported.
 *
 *   npm run build && npx tsx benchmark/startup.ts
 */
import { execFileSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { figure } from './lib/report.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 5)
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Whether anything answers HTTP on the port (any status counts). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/api/agents', timeout: 200 }, (res) => {
      res.resume()
      resolve(true)
    })
    req.on('error', () => resolve(false))
    req.on('timeout', () => {
      req.destroy()
      resolve(false)
    })
  })
}

/**
 * CPU milliseconds used so far by every live process of a process group
 * (Linux /proc; clock ticks of 10 ms), or NaN elsewhere. On a shared machine
 * the wall time also counts waiting for a core; this does not.
 */
function groupCpuMs(group: number): number {
  let ticks = 0
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        // fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15.
        if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12])
      } catch {
        // The process ended meanwhile.
      }
    }
  } catch {
    return Number.NaN
  }
  return ticks * 10
}

/** Wall and CPU milliseconds from spawning `command` to its first HTTP answer on PORT; the process group is stopped afterwards. */
async function timeToFirstAnswer(command: string, args: string[]): Promise<{ wall: number; cpu: number }> {
  const port = await freePort()
  const start = performance.now()
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
    detached: true,
  })
  try {
    while (!(await answers(port))) {
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}`)
      if (performance.now() - start > 30_000) throw new Error(`${command} ${args.join(' ')}: no answer in 30 s`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    return { wall: performance.now() - start, cpu: groupCpuMs(child.pid!) }
  } finally {
    process.kill(-child.pid!, 'SIGTERM')
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))
  }
}

const BARE = `const app = require('express')(); app.get('/api/agents', (_q, s) => s.json('x')); app.listen(Number(process.env.PORT), '127.0.0.1')`
const servers: [string, string, string[]][] = [
  ['npm start', 'npm', ['start', '--silent']],
  ['node dist/esm/lib/cli/index.js', process.execPath, ['dist/esm/lib/cli/index.js']],
  ['bare Express, node -e', process.execPath, ['-e', BARE]],
]

/** Milliseconds an import takes inside a fresh process (the process's own start-up excluded). */
function importTime(kind: 'esm' | 'cjs', specifier: string): number {
  const code =
    kind === 'esm'
      ? `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t)`
      : `const t = performance.now(); require(${JSON.stringify(specifier)}); console.log(performance.now() - t)`
  const args = kind === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code]
  return Number(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim())
}
const imports: [string, 'esm' | 'cjs', string][] = [
  ['express alone, require', 'cjs', 'express'],
  ['mobisite root, require (CJS build)', 'cjs', `${root}dist/cjs/lib/index.js`],
  ['express alone, import', 'esm', 'express'],
  ['mobisite root, import (ESM build)', 'esm', `${root}dist/esm/lib/index.js`],
]

/** Imports are cheap to repeat: more rounds, since the ratio has a goal (issue 37). */
const IMPORT_ROUNDS = ROUNDS * 3
const startTimes = new Map<string, { wall: number; cpu: number }[]>(servers.map(([label]) => [label, []]))
const importTimes = new Map<string, number[]>(imports.map(([label]) => [label, []]))
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, command, args] of servers) startTimes.get(label)!.push(await timeToFirstAnswer(command, args))
}
for (let round = 0; round < IMPORT_ROUNDS; round++) {
  for (const [label, kind, specifier] of imports) importTimes.get(label)!.push(importTime(kind, specifier))
}

console.log(
  `\nmedians of ${ROUNDS} fresh processes, alternating\n\n| start-up | first answer, wall ms | CPU ms of its processes |\n|---|---:|---:|`,
)
for (const [label, times] of startTimes)
  console.log(
    `| ${label} | ${median(times.map((t) => t.wall)).toFixed(0)} | ${median(times.map((t) => t.cpu)).toFixed(0)} |`,
  )
console.log('\n| import | ms |\n|---|---:|')
for (const [label, times] of importTimes) console.log(`| ${label} | ${median(times).toFixed(1)} |`)

const bareTimes = startTimes.get('bare Express, node -e')!
const bare = median(bareTimes.map((t) => t.wall))
for (const label of ['npm start', 'node dist/esm/lib/cli/index.js']) {
  const times = startTimes.get(label)!
  const ms = median(times.map((t) => t.wall))
  figure({
    group: 'start-up',
    name: `${label}: spawn to first HTTP answer`,
    value: Math.round(ms),
    unit: 'ms wall',
    anchor: 'bare Express server, same measure',
    anchorValue: Math.round(bare),
    ratio: Number((ms / bare).toFixed(2)),
    ...(label === 'npm start' ? { target: '<= 1000', targetOf: 'value' as const } : {}),
    note: `median of ${ROUNDS}; ${Math.round(median(times.map((t) => t.cpu)))} ms of CPU in its processes (bare Express ${Math.round(median(bareTimes.map((t) => t.cpu)))}); includes the master account's scrypt hash, which runs while the server modules load`,
  })
}
for (const [kind, mine, theirs] of [
  ['require', 'mobisite root, require (CJS build)', 'express alone, require'],
  ['import', 'mobisite root, import (ESM build)', 'express alone, import'],
] as const) {
  const ms = median(importTimes.get(mine)!)
  const anchor = median(importTimes.get(theirs)!)
  figure({
    group: 'start-up',
    name: `${kind} of the package root`,
    value: Number(ms.toFixed(1)),
    unit: 'ms',
    anchor: `${kind} of express alone`,
    anchorValue: Number(anchor.toFixed(1)),
    ratio: Number((ms / anchor).toFixed(2)),
    // The goal is the ES module build's, which is bundled; the CommonJS build is one file per module.
    ...(kind === 'import' ? { target: '<= 1.25' } : {}),
    note: `median of ${IMPORT_ROUNDS} fresh processes, alternating; the root loads express itself${kind === 'import' ? '; the ES module build is bundled, its validators load with the first validation' : '; one file per module'}`,
  })
}
