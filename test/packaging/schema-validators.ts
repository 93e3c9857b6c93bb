/**
 * The precompiled validators (lib/schema/validators.generated.ts): the file
 * is what `npm run schemas` writes from today's schemas, every schema given
 * to compile() has its validator, and importing the built package root (ESM
 * and CommonJS) loads neither ajv nor a store driver.
 * The import check runs the built package (`npm run build`).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { generate } from '../../scripts/schemas.js'
import * as generated from '../../lib/schema/validators.generated.js'
import { compiledSchemas, validatorName } from '../../lib/schema/validate.js'

t.test('validators.generated.ts is current (else: npm run schemas)', async (t) => {
  const path = fileURLToPath(new URL('../../lib/schema/validators.generated.ts', import.meta.url))
  t.equal(
    readFileSync(path, 'utf8'),
    await generate(),
    'lib/schema/validators.generated.ts is stale: run npm run schemas',
  )
  t.ok(compiledSchemas.length > 20, 'the schema modules were imported')
  for (const schema of compiledSchemas) {
    const name = validatorName(schema)
    t.type((generated as Record<string, unknown>)[name], 'function', name)
  }
})

const probe = (kind: 'esm' | 'cjs'): string =>
  kind === 'esm'
    ? `import { createRequire } from 'node:module'
       const require = createRequire(import.meta.url)
       await import(process.argv[1])
       console.log(JSON.stringify(Object.keys(require.cache)))`
    : `require(process.argv[1]); console.log(JSON.stringify(Object.keys(require.cache)))`

for (const kind of ['esm', 'cjs'] as const) {
  t.test(`${kind} build: importing the package root loads no ajv, ioredis or pg`, async (t) => {
    const entry = fileURLToPath(new URL(`../../dist/${kind}/lib/index.js`, import.meta.url))
    const args = kind === 'esm' ? ['--input-type=module', '-e', probe(kind), entry] : ['-e', probe(kind), entry]
    const loaded = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as string[]
    t.ok(
      loaded.some((path) => /\/node_modules\/express4?\//.test(path)),
      'the probe sees CommonJS modules',
    )
    for (const name of ['ajv', 'ioredis', 'pg'])
      t.notOk(
        loaded.some((path) => path.includes(`/node_modules/${name}/`)),
        `${name} is not loaded`,
      )
  })
}
