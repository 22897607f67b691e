/**
 * The human-readable form of a {@link Plan}, in the spirit of
 * `terraform plan`: `+` creates, `~` updates, `-` deletes, one column per
 * line.
 *
 * ```text
 * Plan for owner "tenant-a": 1 to create, 1 to update, 1 to delete (4 operations, 3 guards)
 *
 *   + Logical_Switch_Port{name="p3"} in Logical_Switch 3f2a…
 *       addresses = ["00:00:00:00:00:03 10.0.0.3"]
 *       name = "p3"
 *   ~ Port_Group{name="pg1"} (shared)
 *       ports += [3f2a…]
 *   - Logical_Switch_Port{name="p2"} (unlink)
 * ```
 * @module
 */

import type { ColumnChange, Plan } from './plan.js';

function text(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'undefined';
}

function columnLines(c: ColumnChange): string[] {
  if (c.how === 'set') return [`${c.column}: ${text(c.from)} → ${text(c.to)}`];
  const out: string[] = [];
  if (c.remove !== undefined && c.remove.length > 0) out.push(`${c.column} -= ${text(c.remove)}`);
  if (c.insert !== undefined) {
    const empty = Array.isArray(c.insert)
      ? c.insert.length === 0
      : Object.keys(c.insert).length === 0;
    if (!empty) out.push(`${c.column} += ${text(c.insert)}`);
  }
  return out;
}

/** Render `plan` as text (see the module's example). */
export function renderPlan(plan: Plan): string {
  const { creates, updates, deletes } = plan.counts;
  const head = plan.empty
    ? `Plan for owner ${text(plan.owner)}: no changes.`
    : `Plan for owner ${text(plan.owner)}: ${creates} to create, ${updates} to update, ${deletes} to delete (${plan.operations} operations, ${plan.guards} guards)`;
  const lines = [head];
  if (!plan.empty) lines.push('');
  for (const c of plan.changes) {
    if (c.action === 'create') {
      lines.push(
        // A key scoped to its parent already names it.
        `  + ${c.key}${c.parent === undefined || c.key.includes(' in ') ? '' : ` in ${c.parent.table} ${c.parent.uuid}`}`,
      );
      for (const col of Object.keys(c.row).sort()) lines.push(`      ${col} = ${text(c.row[col])}`);
    } else if (c.action === 'update') {
      lines.push(`  ~ ${c.key}${c.shared ? ' (shared)' : ''}`);
      for (const col of c.columns) for (const l of columnLines(col)) lines.push(`      ${l}`);
    } else {
      lines.push(`  - ${c.key}${c.how === 'delete' ? '' : ` (${c.how})`}`);
    }
  }
  return lines.join('\n');
}
