// The child's side of spawn-server.ts, for the benchmark servers written in
// plain JS (so no TypeScript loader runs in the measured process).

/**
 * Serves `server` to the parent that forked this process: listens on an
 * ephemeral port of 127.0.0.1 and sends `{ port }`; counts the requests and
 * answers every message with `{ cpuMicros, requests }` (CPU time per request
 * is steadier than req/s on a shared machine, so the parent reads both around
 * each run); exits when the parent disconnects.
 * @param {import('node:http').Server} server
 */
export function serveParent(server) {
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
  let requests = 0
  server.on('request', () => requests++)
  process.on('message', () => {
    const { user, system } = process.cpuUsage()
    process.send({ cpuMicros: user + system, requests })
  })
  process.on('disconnect', () => process.exit(0))
}
