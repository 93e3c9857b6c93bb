/**
 * The suite runs against the Express it says it does: `MOBISITE_TEST_EXPRESS=4`
 * (CI's Node 22 lane, scripts/express-major.mjs) makes every `import 'express'`
 * load express@4, in this process and in the processes it starts; otherwise
 * it is express@5.
 */
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import express from 'express'
import t from 'tap'

const major = process.env.MOBISITE_TEST_EXPRESS ?? '5'
const require = createRequire(import.meta.url)

t.test(`express resolves to express@${major}`, async (t) => {
  const version = (require('express/package.json') as { version: string }).version
  t.match(version, new RegExp(`^${major}\\.`), `require resolves express@${version}`)
  // Express 5 dropped app.del and res.sendfile; Express 4 still has them.
  const app = express() as unknown as { del?: unknown }
  t.equal(typeof app.del === 'function', major === '4', 'the imported express is the same major')
  const child = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', "import e from 'express'; console.log(typeof e().del)"],
    { encoding: 'utf8' },
  ).trim()
  t.equal(child === 'function', major === '4', 'a child process imports the same major')
})
