/**
 * `npm run docs`: writes docs/api.md and docs/errors.md from the route table,
 * the schemas and the error-code registry.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderApiReference, renderErrorReference } from './reference.js'

const docs = fileURLToPath(new URL('../docs/', import.meta.url))
writeFileSync(`${docs}api.md`, renderApiReference())
writeFileSync(`${docs}errors.md`, renderErrorReference())
console.log('wrote docs/api.md and docs/errors.md')
