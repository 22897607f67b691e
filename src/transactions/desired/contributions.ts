/**
 * What the guard of a shared row must hold of one column: the elements an
 * owner's contribution to it was computed from, and no others, so that
 * another applier of the same owner changing them makes the apply plan
 * again while other owners' elements do not (see `docs/desired-state.md`,
 * Guards).
 * @module
 */

import type { ColumnSchema } from '../../ovsdb/schema/schema-types.js';
import { setOwn } from '../../ovsdb/wire/json.js';
import type { Contains } from './plan.js';
import { setAtoms } from './values.js';

/**
 * The `excludes` list holds up to this many of the owner's rows, or as many
 * as the column holds; past both the column is compared whole instead
 * (smaller, and then tripped by any change of it).
 */
export const EXCLUDES_LIMIT = 1000;

/**
 * The guard of column `column` of a shared row that holds `have`, to which
 * the owner contributes `want` (undefined: nothing declared) and whose
 * elements among `owned` (the owner's rows of the referenced table, for a
 * reference set) not in `want` it removes:
 * - of a set, `includes` the declared elements the row holds (the plan does
 *   not insert them again: one removed meanwhile would be lost), and
 *   `excludes` the owned ones it neither holds nor declares (one put in
 *   meanwhile would stay); a declared element it lacks is inserted and an
 *   owned one it holds is deleted, which end the same whatever happened
 *   meanwhile, so they need no guard;
 * - of a map, `includes` the pairs of the declared keys it holds (keys it
 *   lacks are inserted, and another writer's value for one stands, as if it
 *   had come first).
 * `'whole'` when the column is to be compared whole (past
 * {@link EXCLUDES_LIMIT}); undefined when nothing needs guarding.
 */
export function contributionGuard(
  column: ColumnSchema,
  have: unknown,
  want: unknown,
  owned: readonly string[],
): Contains | 'whole' | undefined {
  const kind = column.type.kind;
  if (kind === 'map') {
    if (want === undefined) return undefined;
    const cur = (have ?? {}) as Readonly<Record<string, unknown>>;
    const includes: Record<string, unknown> = {};
    for (const k of Object.keys(want as object)) {
      if (Object.hasOwn(cur, k)) setOwn(includes, k, cur[k]);
    }
    return Object.keys(includes).length > 0 ? { includes, excludes: [] } : undefined;
  }
  if (kind !== 'set') return undefined;
  const wanted = new Set<unknown>(setAtoms(want));
  const held = setAtoms(have);
  const includes = wanted.size === 0 ? [] : held.filter((u) => wanted.has(u));
  const excludes: string[] = [];
  if (owned.length > 0) {
    const holds = new Set<unknown>(held);
    for (const u of owned) if (!wanted.has(u) && !holds.has(u)) excludes.push(u);
  }
  if (excludes.length > EXCLUDES_LIMIT && excludes.length > held.length) return 'whole';
  return includes.length > 0 || excludes.length > 0 ? { includes, excludes } : undefined;
}
