/**
 * What a user installs: the packed tarball's size, and an empty project's
 * `npm install <tarball> express` (express@5, then express@4) in packages and
 * bytes, beside express alone. Issue 37's goals: at most 4 MB unpacked, 100
 * packages and 20 MB with express. The import cost is in startup.ts.
 *
 *   npm run build && npx tsx benchmark/install.ts
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MAX_INSTALL, MAX_UNPACKED, installWeight } from '../test/helpers/packed-consumer.js'
import { figure } from './lib/report.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'mobisite-install-'))
const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })

try {
  // The build is npm run bench's first step; pack what it built.
  const [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], root)) as Array<{
    filename: string
    size: number
    unpackedSize: number
    entryCount: number
  }>
  const tarball = join(work, packed!.filename)
  figure({
    group: 'install',
    name: 'the packed tarball, unpacked',
    value: Number((packed!.unpackedSize / 1e6).toFixed(2)),
    unit: 'MB',
    target: `<= ${MAX_UNPACKED / 1e6} MB`,
    note: `${packed!.entryCount} files, ${(packed!.size / 1e6).toFixed(2)} MB compressed`,
  })

  const project = (name: string, packages: string[]): { packages: string[]; bytes: number } => {
    const dir = join(work, name)
    mkdirSync(dir)
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }))
    npm(['install', '--prefer-offline', '--no-package-lock', ...packages], dir)
    return installWeight(dir)
  }
  const alone = project('express-alone', ['express@5'])
  for (const major of [5, 4]) {
    const withMobisite = project(`mobisite-express${major}`, [tarball, `express@${major}`])
    const anchor = major === 5 ? alone : project(`express${major}-alone`, [`express@${major}`])
    console.log(
      `express@${major}: with mobisite ${withMobisite.packages.length} packages, ${withMobisite.bytes} bytes; alone ${anchor.packages.length}, ${anchor.bytes}`,
    )
    figure({
      group: 'install',
      name: `npm install <tarball> express@${major}: packages`,
      value: withMobisite.packages.length,
      unit: 'packages',
      anchor: `express@${major} alone`,
      anchorValue: anchor.packages.length,
      target: `<= ${MAX_INSTALL.packages}`,
      targetOf: 'value',
      note: 'optional peers (ioredis, pg, selfsigned, @types/express) not installed',
    })
    figure({
      group: 'install',
      name: `npm install <tarball> express@${major}: node_modules`,
      value: Number((withMobisite.bytes / 1e6).toFixed(1)),
      unit: 'MB',
      anchor: `express@${major} alone`,
      anchorValue: Number((anchor.bytes / 1e6).toFixed(1)),
      ratio: Number((withMobisite.bytes / anchor.bytes).toFixed(2)),
      target: `<= ${MAX_INSTALL.bytes / 1e6} MB`,
      note: 'bytes of every file under node_modules',
    })
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
