/**
 * The package as a user gets it: a copy of the source tree (no dist, as in a
 * clean clone) is packed with `npm pack`, whose prepare script builds it; the
 * tarball is installed into a temporary consumer that has only express beside
 * it (no ioredis, no pg, no @types/express of its own), where an ESM script, a
 * CommonJS script and a strict `tsc` (skipLibCheck false) must all work.
 * The scripts run with ioredis and pg blocked (test/helpers/consumer/block-drivers.*),
 * since a node_modules above the temporary directory could otherwise provide them.
 * npm installs from its local cache when it can (--prefer-offline).
 */
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

const exec = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')

/**
 * The environment without npm's lifecycle variables and the test runner's
 * loaders (NODE_OPTIONS, TAP_*), so the nested npm and node runs are plain.
 */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(npm_|tap_|_tapjs|node_options$)/i.test(key)),
) as NodeJS.ProcessEnv
Object.assign(env, { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' })

async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await exec(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 240_000 })
    return stdout
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, {
      cause: error,
    })
  }
}

// One parent test: tap ends a root test with no pending subtests, and the
// temporary tree must outlive every step.
t.test('the packed package in a consumer project', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'mobisite-package-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))

  // A clean-clone-like copy: no build output, no local state; dependencies linked.
  const source = join(work, 'source')
  const skipped = new Set(['node_modules', 'dist', '.git', '.tap', 'coverage'])
  cpSync(root, source, {
    recursive: true,
    filter: (path) => {
      const rel = relative(root, path)
      return !skipped.has(rel.split('/')[0]!) && !rel.endsWith('.tgz')
    },
  })
  symlinkSync(join(root, 'node_modules'), join(source, 'node_modules'), 'dir')

  const packed = JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', work], source)) as Array<{
    filename: string
    files: Array<{ path: string }>
  }>
  const tarball = join(work, basename(packed[0]!.filename))
  const files = packed[0]!.files.map((file) => file.path)

  await t.test('npm pack of a clean tree builds and ships what a user needs', async (t) => {
    for (const path of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/esm/lib/index.js',
      'dist/esm/lib/index.d.ts',
      'dist/cjs/lib/index.js',
      'dist/cjs/lib/index.d.ts',
      'dist/cjs/package.json',
      'dist/esm/lib/redis.js',
      'dist/cjs/lib/redis.js',
      'dist/esm/lib/postgres.js',
      'dist/cjs/lib/postgres.d.ts',
      'dist/esm/lib/testing/index.js',
      'dist/cjs/lib/testing/index.d.ts',
      'dist/esm/lib/cli/index.js',
      'dist/esm/lib/edge.js',
      'dist/esm/lib/edge.d.ts',
    ]) {
      t.ok(files.includes(path), `the tarball has ${path}`)
    }
    t.ok(
      files.some((path) => path.startsWith('docs/')),
      'the tarball has the docs README links to',
    )
    t.notOk(
      files.some((path) => /^(test|benchmark|examples|lib)\//.test(path) || path.endsWith('.map')),
      'no tests, benchmarks, sources or source maps',
    )
  })

  // The consumer: only mobisite (from the tarball) and express.
  const consumer = join(work, 'consumer')
  cpSync(join(root, 'test', 'helpers', 'consumer'), consumer, { recursive: true })
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: { mobisite: `file:${tarball}`, express: '^5.0.0' },
    }),
  )
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock'], consumer)

  await t.test('the consumer has no database driver', async (t) => {
    const installed = readdirSync(join(consumer, 'node_modules'))
    t.notOk(installed.includes('ioredis'), 'ioredis is not installed')
    t.notOk(installed.includes('pg'), 'pg is not installed')
    t.ok(existsSync(join(consumer, 'node_modules', '@types', 'express')), '@types/express came with mobisite')
  })

  await t.test(
    'an ESM consumer: the root loads without ioredis, subpaths resolve, ServiceError is one type',
    async (t) => {
      const out = JSON.parse(
        await run(
          process.execPath,
          ['--require', './block-drivers.cjs', '--import', './block-drivers.mjs', 'esm.mjs'],
          consumer,
        ),
      ) as Record<string, unknown>
      t.strictSame(out, {
        created: { site_name: 'consumerexample' },
        notFound: { status: 404, error_code: 'NotFound' },
        testingExports: ['analyticsConformance', 'storeConformance'],
        redisNeedsIoredis: true,
        postgresEntry: true,
        postgresNeedsPg: true,
        twoCopiesOfTheClass: true,
        esmErrorIsEsmServiceError: true,
        cjsErrorIsEsmServiceError: true,
        esmErrorIsCjsServiceError: true,
        plainErrorIsNot: false,
        edge: { status: 302, location: 'https://m.example.com/shop?id=7' },
      })
    },
  )

  await t.test('a CommonJS consumer: require() of the root and of mobisite/testing', async (t) => {
    const out = JSON.parse(
      await run(process.execPath, ['--require', './block-drivers.cjs', 'cjs.cjs'], consumer),
    ) as Record<string, unknown>
    t.strictSame(out, {
      agents: 'string',
      errorCode: 'ResourceNotExist',
      isServiceError: true,
      testing: 'function',
    })
  })

  await t.test('tsc --strict with skipLibCheck false compiles ESM and CommonJS consumers', async (t) => {
    for (const project of ['tsconfig.json', 'tsconfig.node10.json']) {
      const output = await run(process.execPath, [tsc, '-p', project], consumer).catch((error: Error) => error.message)
      t.equal(output, '', `${project}: no diagnostics`)
    }
  })
})
