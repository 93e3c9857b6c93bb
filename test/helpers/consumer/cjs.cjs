// CommonJS consumer of the packed mobisite (run by test/packaging/package.ts in a temporary project).
const { ServiceError, createEngine } = require('mobisite')
const testing = require('mobisite/testing')

async function main() {
  const engine = createEngine()
  await engine.addMasterAccount({ user: 'u', password: 'p' })
  const error = await engine
    .as('u')
    .getSite('nosuch')
    .catch((e) => e)
  await engine.close()
  console.log(
    JSON.stringify({
      agents: typeof engine.getAgents(),
      errorCode: error.error_code,
      isServiceError: error instanceof ServiceError,
      testing: typeof testing.storeConformance,
    }),
  )
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
