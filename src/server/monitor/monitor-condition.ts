/**
 * The `where` of a `monitor_cond` table request, as ovsdb-server evaluates it.
 *
 * Unlike a `transact` condition (every clause must hold), a monitor condition
 * matches a row when ANY clause does, and an empty condition matches every
 * row. Each clause is parsed and evaluated exactly as in `transact` (see
 * `conditions.ts`); named UUIDs are not accepted.
 *
 * One ovsdb-server quirk is reproduced: when every clause is `true`, `false`
 * or `==` (the server then answers from a hash of the `==` arguments), the
 * constant `true` is honoured only when at most one `false` clause is present,
 * so `[false, false, true]` matches nothing while `[false, true]` matches
 * every row.
 * @module
 */

import type { TableSchema } from '../../ovsdb/schema/schema-types.js';
import { ovsJsonText } from '../../ovsdb/values/ovs-text.js';
import type { Datum } from '../../ovsdb/values/sorted-datum.js';
import {
  type Clause,
  type Condition,
  evaluateCondition,
  parseCondition,
} from '../engine/conditions.js';
import type { SymbolTable } from '../engine/values.js';

/** A parsed monitor condition (ORed clauses). */
export class MonitorCondition {
  /** The condition that matches every row (no clauses). */
  static readonly EMPTY = new MonitorCondition([], '[]');

  private readonly optimized: boolean;
  private readonly constantTrue: boolean;

  private constructor(
    readonly clauses: Condition,
    /** A canonical text of the clauses (order-insensitive), for comparing conditions. */
    readonly key: string,
  ) {
    this.optimized = clauses.every(
      (c) => c.kind === 'constant' || (c.kind === 'compare' && c.fn === '=='),
    );
    let trues = 0;
    let falses = 0;
    for (const c of clauses) {
      if (c.kind === 'constant') {
        if (c.value) trues++;
        else falses++;
      }
    }
    // ovsdb-server sorts the clauses (false, then true, then the rest) and
    // looks for `true` among the first two only.
    this.constantTrue = trues > 0 && falses <= 1;
  }

  /**
   * Parse a `where` array (absent means no clauses).
   * @throws OpError as ovsdb-server reports a bad clause.
   */
  static parse(table: TableSchema, where: readonly unknown[] | undefined): MonitorCondition {
    if (where === undefined || where.length === 0) return MonitorCondition.EMPTY;
    // Without a symbol table a named UUID is a syntax error, as in ovsdb-server.
    const clauses = parseCondition(table, where, undefined as unknown as SymbolTable);
    const key = ovsJsonText(clauses.map(clauseKey).sort());
    return new MonitorCondition(clauses, key);
  }

  /** True when the condition has no clauses. */
  get isEmpty(): boolean {
    return this.clauses.length === 0;
  }

  /**
   * True when ovsdb-server takes the condition as always true
   * (`ovsdb_condition_is_true`: no clauses, or `true` among the first two
   * sorted clauses).
   */
  get isTrue(): boolean {
    return this.clauses.length === 0 || this.constantTrue;
  }

  /**
   * The columns the clauses read (`_uuid` for the constant clauses, as
   * ovsdb-server records them).
   */
  get columns(): string[] {
    return this.clauses.map((c) => (c.kind === 'compare' ? c.column.name : '_uuid'));
  }

  /** True when the row's fields match the condition. */
  matches(fields: Readonly<Record<string, Datum>>): boolean {
    const clauses = this.clauses;
    if (clauses.length === 0) return true;
    if (this.optimized) {
      if (this.constantTrue) return true;
      for (const c of clauses) {
        if (c.kind === 'compare' && evaluateCondition(fields, [c])) return true;
      }
      return false;
    }
    for (const c of clauses) {
      if (c.kind === 'constant' ? c.value : evaluateCondition(fields, [c])) return true;
    }
    return false;
  }

  /** True when both conditions have the same clauses. */
  sameAs(other: MonitorCondition): boolean {
    return this.key === other.key;
  }
}

function clauseKey(c: Clause): string {
  if (c.kind === 'constant') return c.value ? 'true' : 'false';
  return ovsJsonText([c.column.name, c.fn, c.arg.keys, c.arg.values ?? null]);
}
