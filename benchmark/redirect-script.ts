/**
 * The size of `GET /redirect.js` with DEFAULT_AGENTS, as the built package
 * serves it (dist/, what `npm start` runs; under tsx the text would be
 * tsx's own emit): raw, and gzip against the 4 KB target. No timing: the
 * body is built once per agents source and served like a static file.
 *
 *   npm run build && npx tsx benchmark/redirect-script.ts
 */
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { figure } from './lib/report.js'

const dist = fileURLToPath(new URL('../dist/esm/lib/index.js', import.meta.url))
const { startServer } = (await import(dist)) as typeof import('../lib/index.js')

/** The body's length in bytes as sent, with or without gzip. */
function size(url: string, gzip: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = gzip ? { 'Accept-Encoding': 'gzip' } : {}
    http
      .get(url, { headers, agent: false }, (res) => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('end', () => resolve(bytes))
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

const server = await startServer()
try {
  const url = `${server.url}/redirect.js`
  const raw = await size(url, false)
  const gzip = await size(url, true)
  console.log(`GET /redirect.js, DEFAULT_AGENTS: ${raw} bytes, ${gzip} bytes gzip`)
  figure({
    group: 'redirect',
    name: 'GET /redirect.js with DEFAULT_AGENTS, gzip',
    value: gzip,
    unit: 'bytes',
    anchor: 'the same body without gzip',
    anchorValue: raw,
    ratio: Number((gzip / raw).toFixed(3)),
    target: '<= 4096',
    targetOf: 'value',
    note: 'as dist/ serves it (npm start); ratio = gzip / raw; test/redirect/script.ts checks the bound too',
  })
} finally {
  await server.close()
  await server.engine.close()
}
