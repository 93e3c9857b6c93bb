/**
 * The package as a user gets it: a copy of the source tree (no dist, as in a
 * clean clone) is packed with `npm pack`, whose prepare script builds it; the
 * tarball is installed into temporary consumers that have only express beside
 * it, one with express@4 and one with express@5 (the peer range), where an ESM
 * script, a CommonJS script, every Express-facing export and, once
 * @types/express of the same major is added, a strict `tsc` (skipLibCheck
 * false; NodeNext, Node16 and Node10 resolution) must all work.
 * The install itself is bounded (issue 37): the tarball at most 4 MB
 * unpacked, and mobisite with express at most 100 packages and 20 MB.
 * The scripts run with ioredis and pg blocked (test/helpers/consumer/block-drivers.*),
 * since a node_modules above the temporary directory could otherwise provide them.
 * npm installs from its local cache when it can (--prefer-offline).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import {
  BLOCKED,
  MAX_INSTALL,
  MAX_UNPACKED,
  NOT_INSTALLED,
  installWeight,
  makeConsumer,
  npmInstall,
  run,
  typecheck,
} from '../helpers/packed-consumer.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
/** What express-checks.mjs prints: the same on express@4 and express@5. */
let expressAnswers: string | undefined

async function consumerChecks(t: Test, work: string, tarball: string, major: number): Promise<void> {
  const consumer = await makeConsumer(work, tarball, major)
  const installed = JSON.parse(readFileSync(join(consumer, 'node_modules/express/package.json'), 'utf8')) as {
    version: string
  }
  t.match(installed.version, new RegExp(`^${major}\\.`), `express@${installed.version} is the project's own`)

  const weight = installWeight(consumer)
  t.ok(
    weight.packages.length <= MAX_INSTALL.packages && weight.bytes <= MAX_INSTALL.bytes,
    `mobisite with express: ${weight.packages.length} packages, ${weight.bytes} bytes (at most ${MAX_INSTALL.packages} and ${MAX_INSTALL.bytes})`,
  )
  t.same(
    NOT_INSTALLED.filter((name) => weight.packages.includes(name)),
    [],
    'no types-only package, no optional peer, and no express of its own',
  )
  t.equal(weight.packages.filter((name) => name === 'express').length, 1, 'one express: the peer')

  const esm = JSON.parse((await run(process.execPath, [...BLOCKED, 'esm.mjs'], consumer)).stdout)
  t.strictSame(
    esm,
    {
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
      selfSigned: 'a self-signed certificate (tls: true, --tls) needs the optional package selfsigned',
    },
    'an ESM consumer: the root loads without ioredis, subpaths resolve, ServiceError is one type',
  )

  const cjs = JSON.parse(
    (await run(process.execPath, ['--require', './block-drivers.cjs', 'cjs.cjs'], consumer)).stdout,
  )
  t.strictSame(
    cjs,
    { agents: 'string', errorCode: 'ResourceNotExist', isServiceError: true, testing: 'function' },
    'a CommonJS consumer: require() of the root and of mobisite/testing',
  )

  const checks = await run(process.execPath, [...BLOCKED, 'express-checks.mjs'], consumer)
  t.equal(checks.stderr, '', 'no warning, deprecation or otherwise')
  const answers = JSON.parse(checks.stdout) as Record<string, unknown>
  t.match(
    answers,
    {
      create: { status: 200 },
      badJson: { status: 400, body: { error_code: 'InvalidInput' } },
      ssoLink: 'ORIGIN/dashboard/sso?token=T',
      ssoLanding: { status: 303 },
      dashboard: 200,
      beacon: 204,
      script: 200,
      phone: { status: 302, location: 'https://m.example.com/shop' },
      desktop: { status: 200, body: 'desktop shop' },
      adminReset: 204,
    },
    'apiRouter, dashboardRouter, the collector, mobileRedirect, redirectScript and adminRouter answer; links keep the port',
  )
  if (expressAnswers === undefined) expressAnswers = checks.stdout
  else t.equal(checks.stdout, expressAnswers, 'the same answers as with the other express')

  await npmInstall(consumer, [`@types/express@^${major}`])
  for (const config of ['tsconfig.json', 'tsconfig.node16.json', 'tsconfig.node10.json']) {
    t.equal(await typecheck(consumer, config), '', `@types/express@${major}, ${config}: no diagnostics`)
  }
}

// One parent test: tap ends a root test with no pending subtests, and the
// temporary tree must outlive every step.
t.test('the packed package in consumer projects', async (t) => {
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

  const packed = JSON.parse(
    (await run('npm', ['pack', '--json', '--pack-destination', work], source)).stdout,
  ) as Array<{
    filename: string
    unpackedSize: number
    files: Array<{ path: string; size: number }>
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
    t.notOk(
      files.some((path) => path.endsWith('.png')),
      'no images (the docs screenshots stay in the repository)',
    )
    t.ok(packed[0]!.unpackedSize <= MAX_UNPACKED, `${packed[0]!.unpackedSize} bytes unpacked, at most ${MAX_UNPACKED}`)
    t.strictSame(
      files.filter((path) => path.includes('validators.generated')).filter((path) => path.endsWith('.js')),
      ['dist/cjs/lib/schema/validators.generated.js'],
      'the precompiled validators ship once, as CommonJS that both builds require',
    )
    t.ok(files.includes('dist/vendor/json-schema-to-ts/LICENSE'), 'the vendored declarations carry their licence')
  })

  for (const major of [4, 5]) {
    await t.test(`a consumer with express@${major}`, (t) => consumerChecks(t, work, tarball, major))
  }
})
