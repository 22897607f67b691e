/**
 * What a transaction makes of its reply, past the wire's reader
 * (`readTransactReply`): the fence's `assert` taken out (its failure a
 * {@link LockNotHeldError}), a duplicate unique-index value named
 * ({@link DuplicateIndexError}), and the answers the run acts on (a failed
 * `verify`, a duplicate client-chosen UUID).
 * @module
 */

import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { compileColumnCodec, defaultValue } from '../ovsdb/values/datum.js';
import { TransactionError, TransactionRefusedError } from '../ovsdb/wire/errors.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { CompiledTransaction } from './builder.js';
import { DuplicateIndexError, LockNotHeldError } from './errors.js';
import type { ReplicaReader } from './executor.js';

/** The `assert` a transaction fenced by lock `fence` sends first. */
export function fenced(fence: string, ops: readonly Operation[]): Operation[] {
  return [{ op: 'assert', lock: fence }, ...ops];
}

/**
 * The error of a transaction fenced by `fence` as its own operations number
 * it (the `assert` is not one of them): the `assert`'s failure is a
 * {@link LockNotHeldError} for `not owner` (the lock was not held when the
 * server ran it), else a `TransactionError` at index -1; another
 * operation's is renumbered. `results` are the operations' own.
 */
export function unfencedError(
  fence: string,
  error: TransactionError,
  results: readonly unknown[],
): TransactionError {
  if (error.opIndex === 0) {
    if (error.error === 'not owner') {
      return new LockNotHeldError(fence, 'server', error.details ?? 'not owner');
    }
    return new TransactionError(
      -1,
      error.error,
      error.details,
      false,
      'assert',
      undefined,
      results,
    );
  }
  const i = error.opIndex - 1;
  return error instanceof TransactionRefusedError
    ? new TransactionRefusedError(
        error.refusedBy,
        i,
        error.error,
        error.details,
        error.op,
        error.table,
        results,
      )
    : new TransactionError(
        i,
        error.error,
        error.details,
        error.commit,
        error.op,
        error.table,
        results,
      );
}

const DUPLICATE_RE =
  /^Transaction causes multiple rows in "([^"]+)" table to have identical values \((.*)\) for index on columns? (.+?)\.\s+First row, with UUID ([0-9a-fA-F-]{36}), (.*?)\.\s+Second row, with UUID ([0-9a-fA-F-]{36}), (.*)$/s;

/**
 * `error`, the reply's error of `compiled`, as the transaction layer throws
 * it: a {@link DuplicateIndexError} naming the index, the value and both
 * rows for a unique-index "constraint violation"; else `error` itself.
 */
export function typedError<DB extends TableMap>(
  model: DatabaseModel<DB>,
  compiled: CompiledTransaction,
  error: TransactionError,
  replica: ReplicaReader<DB> | undefined,
): TransactionError {
  if (error.error !== 'constraint violation' || error.details === undefined) return error;
  const m = DUPLICATE_RE.exec(error.details);
  if (m === null) return error;
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
    error.opIndex,
    error.details,
    compiled.ops[error.opIndex]?.op,
    t,
    index,
    duplicateValue(model, compiled, t, index, rows, unmodified, replica),
    valueText,
    rows,
    error.results,
  );
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
    const op = ins === undefined ? undefined : compiled.ops[ins.index];
    if (op?.op !== 'insert') continue;
    const out: Record<string, unknown> = {};
    for (const c of index) {
      const column = schema.columns[c];
      if (column === undefined) return undefined;
      const wire = op.row[c];
      try {
        out[c] =
          wire === undefined
            ? defaultValue(column)
            : compileColumnCodec(table, column).decode(wire);
      } catch {
        return undefined; // (a reference to a row of the same transaction, by its `uuid-name`)
      }
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
