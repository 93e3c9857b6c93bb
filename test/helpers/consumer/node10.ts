// A consumer on the older `node10` module resolution (subpaths through typesVersions).
import { createEngine, type Engine } from 'mobisite'
import { storeConformance } from 'mobisite/testing'

export const engine: Engine = createEngine()
export const conformance = storeConformance
