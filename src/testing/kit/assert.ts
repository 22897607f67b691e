/**
 * The test kit's assertions as plain functions, for any test runner
 * (`node:test` included): each throws an `AssertionError` whose message is
 * the diff. `ovnkit/testing/vitest` registers the same checks as vitest
 * matchers.
 * @module
 */

import { AssertionError } from 'node:assert';
import type { ColumnOf, RowOf, TableMap, TableName } from '../../ovsdb/schema/model.js';
import {
  type CompareMode,
  type CompareResult,
  compareEmpty,
  compareState,
  plainState,
} from './compare.js';
import {
  checkSent,
  checkSentAtMost,
  checkSentNothing,
  type OpPattern,
  type TransactionRecorder,
} from './recorder.js';
import type { WithNames } from './seed.js';
import { readState, type StateSource } from './state.js';

/** References in an expected state: any name (checked when compared) or a UUID. */
type AnyName = { readonly [table: string]: string };

/**
 * An expected row of table `T`: any of its columns (`_uuid` included, to
 * pin a row), references by name or UUID.
 */
export type ExpectedRow<DB extends TableMap, T extends TableName<DB>> = {
  readonly [C in Exclude<ColumnOf<DB, T>, '_version'>]?: WithNames<RowOf<DB, T>[C], AnyName>;
};

/**
 * An expected state of model `DB`, written like a seed: per table, rows by
 * name (`{ p1: {...} }`, names that references may use) or in a list.
 */
export type ExpectedState<DB extends TableMap> = {
  readonly [T in TableName<DB>]?:
    | { readonly [name: string]: ExpectedRow<DB, T> }
    | readonly ExpectedRow<DB, T>[];
};

/**
 * Compare `source`'s state with `expected` (see `CompareMode`); a replica
 * is read once it has caught up. Resolves with the verdict and its message.
 */
export async function checkData<DB extends TableMap>(
  source: StateSource<DB>,
  expected: ExpectedState<DB>,
  mode: CompareMode = 'data',
): Promise<CompareResult> {
  return compareState(await readState(source), expected as never, mode);
}

/** Compare `source`'s state with an empty database. */
export async function checkEmptyData(source: StateSource): Promise<CompareResult> {
  return compareEmpty(await readState(source));
}

function fail(r: CompareResult, operator: string): void {
  if (r.pass) return;
  const e = new AssertionError({ message: r.message, operator });
  Error.captureStackTrace?.(e, fail);
  throw e;
}

/**
 * Assert that each table named in `expected` holds exactly the rows given
 * (columns not given are not compared; other tables are not read). Rows
 * match by name: a seed's name stands for its row; other names stand for
 * whichever rows make everything match. Sets and maps compare unordered.
 * A replica is compared once it has caught up with its server.
 * @throws AssertionError whose message is the diff, rows and references by
 *   name or natural key.
 */
export async function assertData<DB extends TableMap>(
  source: StateSource<DB>,
  expected: ExpectedState<DB>,
): Promise<void> {
  fail(await checkData(source, expected, 'data'), 'assertData');
}

/**
 * {@link assertData} for the whole database: a table not named must be
 * empty, and every column not given must hold its default.
 */
export async function assertDataExact<DB extends TableMap>(
  source: StateSource<DB>,
  expected: ExpectedState<DB>,
): Promise<void> {
  fail(await checkData(source, expected, 'exact'), 'assertDataExact');
}

/** {@link assertData}, where the tables named may hold more rows than those given. */
export async function assertDataSubset<DB extends TableMap>(
  source: StateSource<DB>,
  expected: ExpectedState<DB>,
): Promise<void> {
  fail(await checkData(source, expected, 'subset'), 'assertDataSubset');
}

/** Assert that every table of `source` is empty. */
export async function assertEmptyData(source: StateSource): Promise<void> {
  fail(await checkEmptyData(source), 'assertEmptyData');
}

/**
 * `source`'s state as plain data, stable across runs whatever UUIDs rows
 * got: tables with rows, each row by its seed name or natural key, its
 * columns that do not hold their defaults, references as row labels. For
 * snapshots (`expect(await stateSnapshot(db)).toMatchSnapshot()`).
 */
export async function stateSnapshot(
  source: StateSource,
): Promise<Record<string, Record<string, Record<string, unknown>>>> {
  return plainState(await readState(source));
}

/**
 * Assert that exactly these transactions were recorded, in order, each with
 * operations matching the patterns given (`{ op: 'insert', table: 'ACL' }`;
 * members given must match, arrays and values whole).
 * @throws AssertionError listing what was sent.
 */
export function assertSent(
  recorder: TransactionRecorder,
  expected: readonly (readonly OpPattern[])[],
): void {
  fail(checkSent(recorder, expected), 'assertSent');
}

/** Assert that no transaction was recorded. */
export function assertSentNothing(recorder: TransactionRecorder): void {
  fail(checkSentNothing(recorder), 'assertSentNothing');
}

/** Assert that at most `max` transactions were recorded. */
export function assertSentAtMost(recorder: TransactionRecorder, max: number): void {
  fail(checkSentAtMost(recorder, max), 'assertSentAtMost');
}
