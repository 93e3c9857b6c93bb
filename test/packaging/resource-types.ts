/**
 * The public resource types generated from the JSON Schemas
 * (types/resources.generated.ts): the file is what `npm run schemas` writes
 * from today's schemas; the generator refuses what it cannot translate
 * exactly; and in the built package (`npm run build`), an editor hovering a
 * type or a field, from an ESM or a CommonJS consumer, shows the schema's
 * description as its documentation.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'
import { generateResourceTypes } from '../../scripts/schemas.js'
import { PUBLIC_TYPES, renderResourceTypes, sentenceOf } from '../../scripts/resource-types.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

t.test('types/resources.generated.ts is current (else: npm run schemas)', async (t) => {
  t.equal(
    readFileSync(join(root, 'types/resources.generated.ts'), 'utf8'),
    generateResourceTypes(),
    'types/resources.generated.ts is stale: run npm run schemas',
  )
})

t.test('the generator refuses a schema it cannot type exactly', async (t) => {
  const render = (schema: object) => () => renderResourceTypes([{ name: 'X', schema }])
  t.throws(render({ type: 'object', properties: {} }), /X: an object must refuse other keys/)
  t.throws(
    render({ type: 'object', additionalProperties: false, properties: { a: { allOf: [{ type: 'string' }] } } }),
    /X\.a: the type generator does not read allOf/,
  )
  t.throws(render({ type: 'array' }), /X: an array without items/)
  t.throws(render({ description: 'anything' }), /X: the type generator does not read type undefined/)
  t.throws(
    () =>
      renderResourceTypes([
        { name: 'X', schema: { type: 'object', additionalProperties: false }, typeParameters: { M: 'm' } },
      ]),
    /X: type parameter M names no property m/,
  )
})

t.test('a key that is no identifier is quoted, an optional one marked', async (t) => {
  const text = renderResourceTypes([
    {
      name: 'X',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['a-b'],
        properties: { 'a-b': { type: 'integer' }, c: { type: ['string', 'null'], description: 'a c' } },
      },
    },
  ])
  t.match(text, 'export interface X {\n  "a-b": number\n  /** A c. */\n  c?: string | null\n}')
})

interface Probe {
  /** Where the hovered name is, in the consumer's source. */
  position: number
  /** What it is, for the assertion's message. */
  label: string
  /** The documentation the hover must show. */
  expected: string
}

/**
 * A consumer source that names every documented public type and field, and
 * where each name is. A field is reached through a value of its type.
 */
function consumerSource(): { source: string; probes: Probe[] } {
  const names = PUBLIC_TYPES.map(({ name }) => name)
  let source = `import type { ${names.join(', ')} } from 'mobisite'\n`
  const probes: Probe[] = []
  const mark = (text: string, name: string, label: string, description: string | undefined): void => {
    if (description)
      probes.push({ position: source.length + text.lastIndexOf(name), label, expected: sentenceOf(description) })
    source += `${text}\n`
  }
  for (const { name, schema } of PUBLIC_TYPES) {
    const s = schema as { description?: string; properties?: Record<string, { description?: string }> }
    mark(`export declare const the${name}: ${name}`, name, name, s.description)
    for (const [key, property] of Object.entries(s.properties ?? {}))
      mark(`the${name}.${key}`, key, `${name}.${key}`, property.description)
  }
  return { source, probes }
}

/**
 * The documentation an editor shows when hovering each probe, in a consumer
 * at `file` that imports the package by its name from `folder` of the build.
 */
function hovers(file: string, folder: string, source: string, probes: Probe[]): string[] {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: false,
    types: ['node'],
    noEmit: true,
  }
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [file],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const text = name === file ? source : ts.sys.readFile(name)
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text)
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: (name) => name === file || ts.sys.fileExists(name),
    readFile: (name) => (name === file ? source : ts.sys.readFile(name)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  }
  const service = ts.createLanguageService(host)
  const diagnostics = [...service.getSyntacticDiagnostics(file), ...service.getSemanticDiagnostics(file)]
  if (diagnostics.length > 0)
    throw new Error(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'))
  const resolved =
    service
      .getProgram()
      ?.getSourceFiles()
      .map((f) => f.fileName) ?? []
  if (!resolved.includes(join(root, folder, 'lib/index.d.ts')))
    throw new Error(`the consumer did not resolve mobisite to ${folder}: run npm run build`)
  return probes.map(({ position }) =>
    ts.displayPartsToString(service.getQuickInfoAtPosition(file, position)?.documentation ?? []),
  )
}

for (const [kind, file, folder] of [
  ['ESM', join(root, 'test/hover-consumer.mts'), 'dist/esm/'],
  ['CommonJS', join(root, 'test/hover-consumer.cts'), 'dist/cjs/'],
] as const) {
  t.test(`${kind} consumer of the build: hovering a type or a field shows its schema's description`, async (t) => {
    const { source, probes } = consumerSource()
    t.ok(probes.length > 30, 'the types and fields with a description')
    const shown = hovers(file, folder, source, probes)
    probes.forEach(({ label, expected }, i) => t.equal(shown[i], expected, label))
    const declarations = readFileSync(join(root, folder, 'types/resources.generated.d.ts'), 'utf8')
    t.match(declarations, '/** A site as Retrieve Site returns it. */', `${folder} keeps the TSDoc`)
  })
}
