#!/usr/bin/env node
// Adds lockfile entries for optional platform packages the registry here does not serve
// (npm records none for them, and then `npm ci` refuses the lockfile as out of sync).
const fs = require('node:fs')
const file = process.argv[2]
const lock = JSON.parse(fs.readFileSync(file))
const pkgs = lock.packages
const platform = (name) => {
  const n = name.split('/').pop()
  const os = [
    'android',
    'darwin',
    'freebsd',
    'linux',
    'win32',
    'openharmony',
    'sunos',
    'netbsd',
    'openbsd',
    'aix',
  ].find((o) => n.includes(o))
  const cpu = ['arm64', 'x64', 'ia32', 'loong64', 'ppc64', 's390x', 'riscv64', 'arm'].find((c) => n.includes(`-${c}`))
  const libc = n.includes('musl') ? ['musl'] : n.includes('gnu') && os === 'linux' ? ['glibc'] : undefined
  return { os: os && [os], cpu: cpu && [cpu], libc }
}
let added = 0
for (const [path, entry] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? 'node_modules/' : `${path}/node_modules/`
    if (pkgs[`${base}${dep}`] || pkgs[`node_modules/${dep}`]) continue
    const { os, cpu, libc } = platform(dep)
    if (!os || !cpu) continue
    pkgs[`node_modules/${dep}`] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os,
      cpu,
      ...(libc ? { libc } : {}),
    }
    added++
  }
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
)
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n')
console.log(`added ${added} entries`)
