/**
 * The environment of a child process a test starts with `node --import tsx`
 * (the CLI from source). tap records the coverage of every process it
 * starts, children included; a tsx child's coverage maps back to its
 * TypeScript through esbuild's three-line output and comes out as one
 * statement per file. Merged with the real coverage of the test processes,
 * whichever of the two c8 happened to read first set the file's statement
 * map, so the reported figure swung between 93 % of 20,748 statements and
 * 95 % of 6,953 from run to run. These children record no coverage.
 */
export const TSX_CHILD_ENV: NodeJS.ProcessEnv = { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
