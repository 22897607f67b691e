/**
 * The orders the list operations print in, as `ovn-nbctl` sorts with
 * `strcmp`: by UTF-16 code unit.
 * @module
 */

/** Compare two strings by code unit. */
export function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compare two rows by their `name`, by code unit. */
export function byName<R extends { readonly name: string }>(a: R, b: R): number {
  return byString(a.name, b.name);
}
