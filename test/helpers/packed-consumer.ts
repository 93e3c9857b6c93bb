/**
 * A temporary project that installs the packed mobisite with one major of
 * express beside it, and what test/packaging/package.ts checks there: the
 * install's weight, the ESM and CommonJS scripts, every Express-facing export
 * (test/helpers/consumer/express-checks.mjs), and strict tsc with the same
 * major of @types/express.
 */
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const exec = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')

/** The tarball's unpacked size, at most (npm counts 1,000,000 bytes a MB). */
export const MAX_UNPACKED = 4_000_000
/** mobisite with express in an empty project: packages and bytes, at most. */
export const MAX_INSTALL = { packages: 100, bytes: 20_000_000 }
/** Packages a plain install must not bring: types-only ones, and the optional peers. */
export const NOT_INSTALLED = ['@types/express', 'json-schema-to-ts', '@babel/runtime', 'selfsigned', 'ioredis', 'pg']

/**
 * The environment without npm's lifecycle variables and the test runner's
 * loaders (NODE_OPTIONS, TAP_*), so the nested npm and node runs are plain.
 */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(npm_|tap_|_tapjs|node_options$)/i.test(key)),
) as NodeJS.ProcessEnv
Object.assign(env, { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' })

/** Runs a command; its stdout and stderr, or an error that shows both. */
export async function run(command: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  try {
    return await exec(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 240_000 })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, {
      cause: error,
    })
  }
}

/** Installs `packages` into `project` from npm's cache when it can. */
export async function npmInstall(project: string, packages: string[] = []): Promise<void> {
  await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', ...packages],
    project,
  )
}

/** A consumer project: the helper scripts, mobisite from `tarball`, and express@`major`. */
export async function makeConsumer(work: string, tarball: string, major: number): Promise<string> {
  const consumer = join(work, `consumer-express${major}`)
  mkdirSync(consumer)
  cpSync(join(root, 'test', 'helpers', 'consumer'), consumer, { recursive: true })
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: { mobisite: `file:${tarball}`, express: `^${major}.0.0` },
    }),
  )
  await npmInstall(consumer)
  return consumer
}

/** Every installed package (scoped and nested ones too) and the bytes of all their files. */
export function installWeight(project: string): { packages: string[]; bytes: number } {
  const packages: string[] = []
  let bytes = 0
  const walkFiles = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walkFiles(path)
      else if (entry.isFile()) bytes += statSync(path).size
    }
  }
  const walkModules = (modules: string): void => {
    for (const name of readdirSync(modules)) {
      if (name.startsWith('.')) continue
      const path = join(modules, name)
      if (name.startsWith('@')) {
        for (const scoped of readdirSync(path)) packages.push(`${name}/${scoped}`)
        for (const scoped of readdirSync(path)) nested(join(path, scoped))
        continue
      }
      packages.push(name)
      nested(path)
    }
  }
  const nested = (pkg: string): void => {
    if (existsSync(join(pkg, 'node_modules'))) walkModules(join(pkg, 'node_modules'))
  }
  walkModules(join(project, 'node_modules'))
  walkFiles(join(project, 'node_modules'))
  return { packages, bytes }
}

/** The scripts run with ioredis and pg blocked (a node_modules above the project could provide them). */
export const BLOCKED = ['--require', './block-drivers.cjs', '--import', './block-drivers.mjs']

/** `tsc -p <config>` in the consumer: its diagnostics, empty when it compiles. */
export async function typecheck(consumer: string, config: string): Promise<string> {
  return run(process.execPath, [tsc, '-p', config], consumer).then(
    ({ stdout }) => stdout,
    (error: Error) => error.message,
  )
}
