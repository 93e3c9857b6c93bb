/**
 * The resolve hook of register.mjs: `express` and `express/...` become
 * `express4` where that resolves. Elsewhere (a scratch project of the
 * packaging test, which has its own express; tap's process tracking passes
 * NODE_OPTIONS to every child) they stay what they are.
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'express' || specifier.startsWith('express/')) {
    try {
      return await nextResolve(`express4${specifier.slice(7)}`, context)
    } catch {
      return nextResolve(specifier, context)
    }
  }
  return nextResolve(specifier, context)
}
