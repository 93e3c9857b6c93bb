/** The resolve hook of register.mjs: `express` and `express/...` become `express4`. */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'express' || specifier.startsWith('express/'))
    return nextResolve(`express4${specifier.slice(7)}`, context)
  return nextResolve(specifier, context)
}
