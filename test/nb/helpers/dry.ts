/**
 * Building DSL transactions without a server: an {@link NbTxn} over a fresh
 * transaction builder and an empty database view. What the operations read
 * is what earlier operations of the same transaction wrote.
 */

import { NB, type NbReader, NbTxn } from '../../../src/nb/index.js';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import { TransactionBuilder } from '../../../src/transactions/builder.js';

/** An empty Northbound database. */
export const EMPTY: NbReader = {
  get: () => undefined,
  rows: () => [],
};

/** A new transaction over `reader` (default: an empty database). */
export function dryTxn(reader: NbReader = EMPTY): NbTxn {
  return new NbTxn(new TransactionBuilder(NB, undefined), reader);
}

/** Run `build` in a new transaction and return the operations it produced. */
export function dryOps(build: (t: NbTxn) => void, reader: NbReader = EMPTY): readonly Operation[] {
  const t = dryTxn(reader);
  build(t);
  return t.tx.build().ops;
}
