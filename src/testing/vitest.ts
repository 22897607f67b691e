/**
 * The test kit's matchers for vitest. Import this module once (in a test
 * file or in a `setupFiles` entry) and `expect` knows them, typed:
 *
 * ```ts
 * import 'ovnkit/testing/vitest';
 *
 * await expect(db).toHaveData({ Logical_Switch: { sw0: { ports: ['p1'] } } });
 * await expect(client).toHaveDataSubset({ Logical_Switch_Port: [{ name: 'p2' }] });
 * await expect(db).toHaveEmptyData();
 * expect(recorder).toHaveSent([[{ op: 'insert', table: 'Logical_Switch_Port' }]]);
 * expect(recorder).toHaveSentNothing();
 * expect(recorder).toHaveSentAtMost(2);
 * ```
 *
 * The state matchers are asynchronous (a client's replica is read once it
 * has caught up): `await` them. Each has a plain-function twin in
 * `ovnkit/testing` (`assertData`, `assertSent`, …) for other runners.
 * This module imports `vitest`; nothing else of `ovnkit/testing` does.
 * (`startOvnOrSkip` in `ovnkit/testing` skips a vitest test through its
 * context.)
 * @module
 */

import { expect } from 'vitest';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { checkData, checkEmptyData, type ExpectedState } from './kit/assert.js';
import type { CompareResult } from './kit/compare.js';
import {
  checkSent,
  checkSentAtMost,
  checkSentNothing,
  type OpPattern,
  TransactionRecorder,
} from './kit/recorder.js';
import { isStateSource, type StateSource } from './kit/state.js';

/** The expected state a matcher takes for a value of type `T` (a test database or a replica). */
export type ExpectedStateOf<T> = T extends { readonly model: DatabaseModel<infer DB> }
  ? ExpectedState<DB>
  : ExpectedState<TableMap>;

/** The test kit's matchers, as `expect(x)` offers them once this module is imported. */
export interface OvnkitMatchers<T = unknown> {
  /**
   * Each table named holds exactly the rows given (no more, no fewer);
   * columns not given are not compared; other tables are not read. Rows
   * match by name (a seed's names stand for its rows), sets and maps
   * compare unordered. On a client's replica, compared once it has caught
   * up with its server.
   */
  toHaveData(expected: ExpectedStateOf<T>): Promise<void>;
  /** {@link OvnkitMatchers.toHaveData} for the whole database: unnamed tables empty, columns not given at their defaults. */
  toHaveDataExact(expected: ExpectedStateOf<T>): Promise<void>;
  /** {@link OvnkitMatchers.toHaveData}, where tables may hold more rows than those given. */
  toHaveDataSubset(expected: ExpectedStateOf<T>): Promise<void>;
  /** Every table is empty. */
  toHaveEmptyData(): Promise<void>;
  /** A recorder holds exactly these transactions, in order, operations matching the patterns given. */
  toHaveSent(expected: readonly (readonly OpPattern[])[]): void;
  /** A recorder holds no transaction. */
  toHaveSentNothing(): void;
  /** A recorder holds at most `max` transactions. */
  toHaveSentAtMost(max: number): void;
}

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: vitest declares `Matchers<T = any>`; an augmentation must repeat it
  interface Matchers<T = any> extends OvnkitMatchers<T> {}
}

function verdict(r: CompareResult): { pass: boolean; message: () => string } {
  return { pass: r.pass, message: () => r.message };
}

function source(received: unknown, matcher: string): StateSource {
  if (isStateSource(received)) return received;
  throw new TypeError(
    `${matcher}: expected a test database or a client (an object with a model and rows()), got ${typeof received}`,
  );
}

function recorder(received: unknown, matcher: string): TransactionRecorder {
  if (received instanceof TransactionRecorder) return received;
  throw new TypeError(`${matcher}: expected a TransactionRecorder (from db.record())`);
}

expect.extend({
  async toHaveData(received: unknown, expected: ExpectedState<TableMap>) {
    return verdict(await checkData(source(received, 'toHaveData'), expected, 'data'));
  },
  async toHaveDataExact(received: unknown, expected: ExpectedState<TableMap>) {
    return verdict(await checkData(source(received, 'toHaveDataExact'), expected, 'exact'));
  },
  async toHaveDataSubset(received: unknown, expected: ExpectedState<TableMap>) {
    return verdict(await checkData(source(received, 'toHaveDataSubset'), expected, 'subset'));
  },
  async toHaveEmptyData(received: unknown) {
    return verdict(await checkEmptyData(source(received, 'toHaveEmptyData')));
  },
  toHaveSent(received: unknown, expected: readonly (readonly OpPattern[])[]) {
    return verdict(checkSent(recorder(received, 'toHaveSent'), expected));
  },
  toHaveSentNothing(received: unknown) {
    return verdict(checkSentNothing(recorder(received, 'toHaveSentNothing')));
  },
  toHaveSentAtMost(received: unknown, max: number) {
    return verdict(checkSentAtMost(recorder(received, 'toHaveSentAtMost'), max));
  },
});
