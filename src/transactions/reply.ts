/**
 * Reading a `transact` reply: finding the failing operation (or commit) and
 * turning it into a typed error, and recognising the answers the execution
 * layer acts on (a failed `verify`, a duplicate client-chosen UUID).
 * @module
 */

import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { defaultValue } from '../ovsdb/values/datum.js';
import { isRefusal, TransactionError, TransactionRefusedError } from '../ovsdb/wire/errors.js';
import { isObject } from '../ovsdb/wire/json.js';
import { stringifyJson } from '../ovsdb/wire/json-text.js';
import type { CompiledTransaction } from './builder.js';
import { DuplicateIndexError } from './errors.js';
import type { ReplicaReader } from './executor.js';

/** The index and content of the first error entry of `results`, if any. */
export function firstError(
  results: readonly unknown[],
): { index: number; error: string; details: string | undefined } | undefined {
  for (let i = 0; i < results.length; i++) {
    const r = results[i];
    if (isObject(r) && r['error'] !== undefined && r['error'] !== null) {
      const e = r['error'];
      const d = r['details'];
      return {
        index: i,
        error: typeof e === 'string' ? e : stringifyJson(e),
        details: typeof d === 'string' ? d : undefined,
      };
    }
  }
  return undefined;
}

const DUPLICATE_RE =
  /^Transaction causes multiple rows in "([^"]+)" table to have identical values \((.*)\) for index on columns? (.+?)\.\s+First row, with UUID ([0-9a-fA-F-]{36}), (.*?)\.\s+Second row, with UUID ([0-9a-fA-F-]{36}), (.*)$/s;

/**
 * The typed error for the first error entry of `results` of `compiled`: a
 * {@link DuplicateIndexError} for a unique-index "constraint violation",
 * a `TransactionRefusedError` for a refusal (`permission error`, `not
 * allowed`, `not owner`), else a `TransactionError` with the failing
 * operation's index, kind and table (or `commit` true for the extra
 * commit-error entry).
 */
export function errorFromResults<DB extends TableMap>(
  model: DatabaseModel<DB>,
  compiled: CompiledTransaction,
  results: readonly unknown[],
  replica: ReplicaReader<DB> | undefined,
): TransactionError | undefined {
  const e = firstError(results);
  if (e === undefined) return undefined;
  const commit = e.index >= compiled.ops.length;
  const op = compiled.ops[e.index];
  const table = op !== undefined && 'table' in op ? op.table : undefined;
  if (e.error === 'constraint violation' && e.details !== undefined) {
    const m = DUPLICATE_RE.exec(e.details);
    if (m !== null) {
      const [, t, valueText, cols, a, aWhat, b, bWhat] = m as unknown as string[] as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const index = [...cols.matchAll(/"([^"]+)"/g)].map((x) => x[1]!);
      const rows: [string, string] = [a.toLowerCase(), b.toLowerCase()];
      const unmodified = [aWhat, bWhat].map((w) => w.includes('was not modified'));
      return new DuplicateIndexError(
        e.index,
        e.details,
        op?.op,
        t,
        index,
        duplicateValue(model, compiled, t, index, rows, unmodified, replica),
        valueText,
        rows,
        results,
      );
    }
  }
  if (!commit && isRefusal(e.error)) {
    return new TransactionRefusedError(
      'server',
      e.index,
      e.error,
      e.details,
      op?.op,
      table,
      results,
    );
  }
  return new TransactionError(e.index, e.error, e.details, commit, op?.op, table, results);
}

/** The index value both rows share: from our insert of one of them, or the replica's copy. */
function duplicateValue<DB extends TableMap>(
  model: DatabaseModel<DB>,
  compiled: CompiledTransaction,
  table: string,
  index: readonly string[],
  rows: readonly [string, string],
  unmodified: readonly boolean[],
  replica: ReplicaReader<DB> | undefined,
): Record<string, unknown> | undefined {
  const schema = model.schema.tables[table];
  if (schema === undefined) return undefined;
  for (const uuid of rows) {
    const ins = compiled.inserts.find((i) => i.uuid === uuid && i.table === table);
    if (ins === undefined) continue;
    const out: Record<string, unknown> = {};
    for (const c of index) {
      const column = schema.columns[c];
      if (column === undefined) return undefined;
      out[c] = ins.row[c] ?? defaultValue(column);
    }
    return out;
  }
  if (replica === undefined || !replica.isMonitored(table as never)) return undefined;
  // A row that existed before the transaction and was not modified by it
  // holds the value in the replica.
  for (let i = 0; i < rows.length; i++) {
    const uuid = rows[i]!;
    if (!unmodified[i]) continue;
    const row = replica.get(table as never, uuid) as Readonly<Record<string, unknown>> | undefined;
    if (row === undefined) continue;
    const out: Record<string, unknown> = {};
    for (const c of index) {
      if (!(c in row)) return undefined;
      out[c] = row[c];
    }
    return out;
  }
  return undefined;
}

/**
 * True when `error` says that one of `compiled`'s inserts failed with
 * "duplicate uuid": a row with its client-chosen UUID already exists.
 */
export function isDuplicateInsert(compiled: CompiledTransaction, error: TransactionError): boolean {
  return (
    error.error === 'duplicate uuid' && compiled.inserts.some((i) => i.index === error.opIndex)
  );
}

/** The `verify` whose `wait` failed with "timed out", if that is what `error` is. */
export function failedVerify(
  compiled: CompiledTransaction,
  error: TransactionError,
): CompiledTransaction['verifies'][number] | undefined {
  if (error.error !== 'timed out' || error.commit) return undefined;
  return compiled.verifies.find((v) => v.index === error.opIndex);
}
