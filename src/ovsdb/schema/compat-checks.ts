/**
 * What the client sends, checked against the server's schema where it
 * differs from the model's (see `compat.ts`): the operations of a
 * transaction ({@link checkOperations}: a write the server's types do not
 * admit, or that names a table or column it lacks, fails before anything is
 * sent), and a table's monitor condition as it can be sent to that server
 * ({@link serverConditions}).
 * @module
 */

import { serverConditionType, serverMutationType } from '../values/argument-types.js';
import { compileColumnCodec, type DecodeContext } from '../values/datum.js';
import { ZERO_UUID } from '../values/uuid.js';
import { columnValueProblem, describeColumnType } from '../values/value-checks.js';
import { DatumError } from '../wire/errors.js';
import type { Condition, Operation } from '../wire/wire.js';
import {
  absentColumns,
  type CompatReport,
  type DriftedValue,
  differenceColumns,
  SchemaDriftError,
} from './compat.js';
import type { ColumnSchema, DatabaseSchema } from './schema-types.js';

/** What a monitor condition on a column the server lacks does: fail the sync, or go unsent. */
export type AbsentConditionPolicy = 'refuse' | 'drop';

/** A table's monitor condition as sent to one server, and the clauses left out. */
export interface ServerConditions {
  /** The condition to send (`[false]` when every clause was dropped). */
  readonly where: readonly Condition[];
  /** The clauses dropped: they name a column the server lacks (`policy` `drop`). */
  readonly dropped: readonly Condition[];
}

/**
 * The monitor condition `where` (wire form: a row is monitored when any
 * clause holds) of `table` as it can be sent to the server: a clause on a
 * column the server lacks (or has with a type the model cannot read) fails
 * with `policy` `refuse`, and is dropped with `drop` (as Open vSwitch's C
 * IDL does since 2026-06: a clause that can match no row of that server),
 * `[false]` standing for a condition whose every clause was dropped; a
 * clause whose value the server's type of its column does not admit fails.
 * @throws SchemaDriftError (with `opIndex` -1) naming the table, the column
 *   and, for a value, the server's type.
 */
export function serverConditions(
  report: CompatReport,
  model: DatabaseSchema,
  table: string,
  where: readonly Condition[],
  policy: AbsentConditionPolicy,
): ServerConditions {
  const absent = absentColumns(report, model, table);
  const rules = writeRules(report, table);
  const context = `the monitor condition of table ${table}`;
  if (absent.length === 0 && rules === undefined) return { where, dropped: [] };
  const kept: Condition[] = [];
  const dropped: Condition[] = [];
  for (const c of where) {
    if (typeof c === 'boolean') {
      kept.push(c);
      continue;
    }
    if (absent.includes(c[0])) {
      if (policy === 'refuse') {
        throw new SchemaDriftError(table, c[0], -1, report.serverVersion, context);
      }
      dropped.push(c);
      continue;
    }
    if (rules !== undefined) checkCondition(rules, report, table, c, -1, context);
    kept.push(c);
  }
  return { where: kept.length === 0 && dropped.length > 0 ? [false] : kept, dropped };
}

/** What a write to one table must respect on this server. */
interface WriteRules {
  /** Columns the server lacks. */
  readonly missing: ReadonlySet<string>;
  /** Columns the server has with a type the model cannot read or write: the server's schema of each. */
  readonly unreadable: ReadonlyMap<string, ColumnSchema>;
  /** Columns whose values are checked: the server's schema of each. */
  readonly checked: ReadonlyMap<string, ColumnSchema>;
  /** Columns the server requires a value for and the model does not: an insert must give them. */
  readonly required: readonly string[];
}

const rulesCache = new WeakMap<CompatReport, Map<string, WriteRules | undefined>>();

/** The rules of writes to `table`, or undefined when the server takes every write of the model's. */
function writeRules(report: CompatReport, table: string): WriteRules | undefined {
  let byTable = rulesCache.get(report);
  if (byTable === undefined) {
    byTable = new Map();
    rulesCache.set(report, byTable);
  }
  if (byTable.has(table)) return byTable.get(table);
  const missing = new Set(
    Object.hasOwn(report.missingColumns, table) ? report.missingColumns[table] : [],
  );
  const checked = new Map<string, ColumnSchema>();
  const unreadable = new Map<string, ColumnSchema>();
  const required: string[] = [];
  for (const d of report.typeDifferences) {
    if (d.table !== table || d.writes === 'exact') continue;
    const columns = differenceColumns.get(d);
    if (columns === undefined) continue;
    if (d.incompatible) {
      unreadable.set(d.column, columns.server);
      continue;
    }
    checked.set(d.column, columns.server);
    if (columns.server.type.min > 0 && columns.model.type.min === 0) required.push(d.column);
  }
  const rules =
    missing.size === 0 && checked.size === 0 && unreadable.size === 0
      ? undefined
      : { missing, unreadable, checked, required };
  byTable.set(table, rules);
  return rules;
}

/** Named UUIDs stand for some row: their value does not matter to the checks. */
const ANY_ROW: DecodeContext = { resolveNamedUuid: () => ZERO_UUID };

/** Why the server's type of `column`, read as `type`, refuses `wire`; undefined when it admits it. */
function refusal(
  table: string,
  column: ColumnSchema,
  type: ColumnSchema,
  wire: unknown,
): DriftedValue | undefined {
  let reason: string | undefined;
  try {
    reason = columnValueProblem(type, compileColumnCodec(table, type).decode(wire, ANY_ROW));
  } catch (e) {
    if (!(e instanceof DatumError)) throw e;
    reason = e.reason;
  }
  return reason === undefined
    ? undefined
    : { value: wire, reason, serverType: describeColumnType(column) };
}

/** Refuse a value of `name` (read as the server reads it: `typeOf` of its schema) the server's type does not admit. */
function checkValue(
  rules: WriteRules,
  report: CompatReport,
  table: string,
  name: string,
  wire: unknown,
  index: number,
  typeOf: (column: ColumnSchema) => ColumnSchema | undefined,
  context?: string,
): void {
  if (rules.missing.has(name)) {
    throw new SchemaDriftError(table, name, index, report.serverVersion, context);
  }
  const other = rules.unreadable.get(name);
  if (other !== undefined) {
    throw new SchemaDriftError(table, name, index, report.serverVersion, context, {
      value: wire,
      reason:
        'the server types the column otherwise, in a way the model can neither read nor write',
      serverType: describeColumnType(other),
    });
  }
  const column = rules.checked.get(name);
  if (column === undefined) return;
  const type = typeOf(column);
  if (type === undefined) return;
  const refused = refusal(table, column, type, wire);
  if (refused !== undefined) {
    throw new SchemaDriftError(table, name, index, report.serverVersion, context, refused);
  }
}

function checkCondition(
  rules: WriteRules,
  report: CompatReport,
  table: string,
  c: Exclude<Condition, boolean>,
  index: number,
  context?: string,
): void {
  checkValue(
    rules,
    report,
    table,
    c[0],
    c[2],
    index,
    (col) => serverConditionType(col, c[1]),
    context,
  );
}

function isWireMap(v: unknown): boolean {
  return Array.isArray(v) && v[0] === 'map';
}

/**
 * Check that every table and column `ops` name exists on the server, and
 * that every value they write to a column or compare it with is one the
 * server's type of the column admits (an insert giving each column the
 * server requires a value for).
 * @throws SchemaDriftError naming the first table, column or value that
 *   does not.
 */
export function checkOperations(
  report: CompatReport,
  server: DatabaseSchema,
  ops: readonly Operation[],
): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (!('table' in op)) continue;
    const table = server.tables[op.table];
    if (table === undefined) {
      // Let the server answer for tables neither side knows.
      if (report.missingTables.includes(op.table)) {
        throw new SchemaDriftError(op.table, undefined, i, report.serverVersion);
      }
      continue;
    }
    // On the path of every write: nothing to look for in a table the server takes whole.
    const rules = writeRules(report, op.table);
    if (rules === undefined) continue;
    const t = op.table;
    const whole = (col: ColumnSchema): ColumnSchema => col;
    const conditions = (where: readonly Condition[] | undefined): void => {
      for (const c of where ?? [])
        if (typeof c !== 'boolean') checkCondition(rules, report, t, c, i);
    };
    const named = (columns: readonly string[] | undefined): void => {
      for (const c of columns ?? []) {
        if (rules.missing.has(c) || rules.unreadable.has(c)) {
          checkValue(rules, report, t, c, undefined, i, whole);
        }
      }
    };
    switch (op.op) {
      case 'insert':
      case 'update':
        for (const [c, v] of Object.entries(op.row)) checkValue(rules, report, t, c, v, i, whole);
        if (op.op === 'update') conditions(op.where);
        else {
          for (const c of rules.required) {
            if (op.row[c] !== undefined) continue;
            const column = rules.checked.get(c)!;
            throw new SchemaDriftError(t, c, i, report.serverVersion, undefined, {
              value: undefined,
              reason:
                'the server requires a value (it would store its default), and the model does not',
              serverType: describeColumnType(column),
            });
          }
        }
        break;
      case 'mutate':
        for (const [c, mutator, v] of op.mutations) {
          checkValue(rules, report, t, c, v, i, (col) =>
            serverMutationType(col, mutator, !isWireMap(v)),
          );
        }
        conditions(op.where);
        break;
      case 'select':
        named(op.columns);
        named(op.sort);
        conditions(op.where);
        break;
      case 'delete':
        conditions(op.where);
        break;
      case 'wait':
        named(op.columns);
        conditions(op.where);
        for (const r of op.rows) {
          for (const [c, v] of Object.entries(r)) checkValue(rules, report, t, c, v, i, whole);
        }
        break;
    }
  }
}
