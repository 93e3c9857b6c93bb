/** Exact type equality, not mutual assignability: optional and readonly modifiers count. */
export type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false
