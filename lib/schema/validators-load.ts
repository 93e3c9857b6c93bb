/**
 * The precompiled validators (validators.generated.ts). From source they are
 * imported with this module. The builds replace this module
 * (scripts/build.mjs): there the generated code, 0.4 MB that importing the
 * root should not pay for, is required by the first validation from the one
 * CommonJS copy in dist/cjs that both builds share.
 */
import * as generated from './validators.generated.js'

/** The exports of validators.generated: each precompiled validator under its name. */
export function loadValidators(): Record<string, unknown> {
  return generated
}
