/**
 * The human-readable form of a {@link Plan}, in the spirit of
 * `terraform plan`: `+` creates, `~` updates, `-` deletes, one column per
 * line, every row named by its natural key (a child's with its parent's),
 * references by the key of the row they name; a UUID only for a row
 * without a key.
 *
 * ```text
 * Plan for owner "tenant-a": 1 to create, 2 to update, 1 to delete (4 operations, 4 guards)
 *
 *   + Logical_Switch_Port{name="p3"} in Logical_Switch{name="sw0"}
 *       addresses = ["00:00:00:00:00:03 10.0.0.3"]
 *       external_ids = {"ovnkit-owner":"tenant-a"}
 *       name = "p3"
 *   ~ Logical_Switch{name="sw0"}
 *       ports += [Logical_Switch_Port{name="p3"}]
 *   ~ Port_Group{name="pg1"} (shared)
 *       ports += [Logical_Switch_Port{name="p3"}]
 *   - Logical_Switch_Port{name="p2"} (unlink)
 * ```
 * @module
 */

import type { ColumnSchema } from '../../ovsdb/schema/schema-types.js';
import { setOwn } from '../../ovsdb/wire/json.js';
import type { ColumnChange, Plan } from './plan.js';

/**
 * The keys (as text, from `nameOf`) of the rows that `values` of `column`
 * name by UUID: set elements, single values, and the keys or values of map
 * pairs, as the column's type references rows; undefined when none has a key.
 */
export function refKeys(
  column: ColumnSchema,
  values: readonly unknown[],
  nameOf: (table: string, uuid: string) => string | undefined,
): Record<string, string> | undefined {
  const keyRef = column.type.key.refTable;
  const valueRef = column.type.value?.refTable;
  if (keyRef === undefined && valueRef === undefined) return undefined;
  const out: Record<string, string> = {};
  const name = (ref: string | undefined, u: unknown): void => {
    if (ref === undefined || typeof u !== 'string' || Object.hasOwn(out, u)) return;
    const key = nameOf(ref, u);
    if (key !== undefined) setOwn(out, u, key);
  };
  for (const v of values) {
    if (Array.isArray(v)) for (const u of v) name(keyRef, u);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        name(keyRef, k);
        name(valueRef, x);
      }
    } else name(keyRef, v);
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function json(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'undefined';
}

/**
 * `v` as text; with `refs`, a UUID that names a row with a key is shown as
 * that key, without the ` in <owner>` of a child shown in its own parent.
 */
function text(
  v: unknown,
  refs: Readonly<Record<string, string>> | undefined,
  owner: string,
): string {
  if (refs === undefined) return json(v);
  const one = (x: unknown): string => {
    if (typeof x !== 'string' || !Object.hasOwn(refs, x)) return json(x);
    const key = refs[x]!;
    const suffix = ` in ${owner}`;
    return key.endsWith(suffix) ? key.slice(0, -suffix.length) : key;
  };
  // A set's elements in the order of their text (a set has no order of its own).
  if (Array.isArray(v)) return `[${v.map(one).sort().join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const pairs = Object.entries(v).map(([k, x]) => `${one(k)}: ${one(x)}`);
    return `{${pairs.join(', ')}}`;
  }
  return one(v);
}

function columnLines(c: ColumnChange, owner: string): string[] {
  const t = (v: unknown): string => text(v, c.refs, owner);
  if (c.how === 'set') return [`${c.column}: ${t(c.from)} → ${t(c.to)}`];
  const out: string[] = [];
  if (c.remove !== undefined && c.remove.length > 0) out.push(`${c.column} -= ${t(c.remove)}`);
  if (c.insert !== undefined) {
    const empty = Array.isArray(c.insert)
      ? c.insert.length === 0
      : Object.keys(c.insert).length === 0;
    if (!empty) out.push(`${c.column} += ${t(c.insert)}`);
  }
  return out;
}

/** Render `plan` as text (see the module's example). */
export function renderPlan(plan: Plan): string {
  const { creates, updates, deletes } = plan.counts;
  const head = plan.empty
    ? `Plan for owner ${json(plan.owner)}: no changes.`
    : `Plan for owner ${json(plan.owner)}: ${creates} to create, ${updates} to update, ${deletes} to delete (${plan.operations} operations, ${plan.guards} guards)`;
  const lines = [head];
  if (!plan.empty) lines.push('');
  for (const c of plan.changes) {
    if (c.action === 'create') {
      const p = c.parent;
      // A key scoped to its parent already names it.
      const parent =
        p === undefined || c.key.includes(' in ') ? '' : ` in ${p.key ?? `${p.table} ${p.uuid}`}`;
      lines.push(`  + ${c.key}${parent}`);
      for (const col of Object.keys(c.row).sort()) {
        lines.push(`      ${col} = ${text(c.row[col], c.refs?.[col], c.key)}`);
      }
    } else if (c.action === 'update') {
      lines.push(`  ~ ${c.key}${c.shared ? ' (shared)' : ''}`);
      for (const col of c.columns)
        for (const l of columnLines(col, c.key)) lines.push(`      ${l}`);
    } else {
      lines.push(`  - ${c.key}${c.how === 'delete' ? '' : ` (${c.how})`}`);
    }
  }
  return lines.join('\n');
}
