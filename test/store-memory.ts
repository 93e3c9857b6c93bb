import t from 'tap'
import { MemoryStore } from '../lib/store/memory.js'
import { storeConformance } from './helpers/store-conformance.js'

storeConformance(t, 'MemoryStore', () => new MemoryStore())
