// Runs only the example suite (the repository's own tests are tap's).
export default { test: { include: ['examples/testing/vitest-suite.mjs'] } }
