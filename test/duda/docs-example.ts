/**
 * The test docs/duda-api.md shows ("Using the client against mobisite") is
 * run as it is written: short (under 15 lines), type-checked with
 * `tsc --strict`, and passing under `node --test` against this tree's
 * sources, the only change being its `mobisite` imports.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { exampleFolder, fencedBlock, typeErrors, withLocalSources } from '../helpers/doc-examples.js'
import { TSX_CHILD_ENV } from '../helpers/tsx-child.js'

const run = promisify(execFile)
const example = fencedBlock('docs/duda-api.md', '## Using the client against mobisite')

t.test('the example is a complete test in under 15 lines', async (t) => {
  t.ok(example.trimEnd().split('\n').length < 15, `${example.trimEnd().split('\n').length} lines`)
  t.match(example, /from 'node:test'/)
  t.match(example, /from '@dudadev\/partner-api'/)
  t.match(example, /dudaClientOptions\(server\)/, 'the port comes from the server, not from boilerplate')
})

t.test('the example type-checks and passes under node --test', async (t) => {
  const dir = exampleFolder(t, { 'sites.test.ts': withLocalSources(example) })
  // Side by side; typeErrors writes its tsconfig.json before the child starts (tsx reads it too).
  const checking = typeErrors(dir, 'sites.test.ts')
  // NODE_OPTIONS cleared: the runner's own loaders stay out of the child and its test process.
  const running = run(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=tap', join(dir, 'sites.test.ts')],
    {
      cwd: dir,
      env: { ...TSX_CHILD_ENV, NODE_OPTIONS: '' },
      timeout: 120_000,
    },
  ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    t.fail(`node --test failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`)
    return { stdout: '' }
  })
  const [errors, { stdout }] = await Promise.all([checking, running])
  t.equal(errors, '', 'tsc --strict: no diagnostics')
  t.match(stdout, /^# pass 1$/m, 'its one test passed')
  t.match(stdout, /^# fail 0$/m)
})
