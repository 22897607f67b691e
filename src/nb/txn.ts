/**
 * {@link NbTxn}: one Northbound transaction being built, with read-your-writes
 * inside it (a `TransactionView` of the NB model).
 *
 * Every DSL operation (`lsAdd`, `lspAdd`, `aclAdd`, …) takes an `NbTxn`,
 * appends OVSDB operations to its transaction builder (`t.tx`) and returns
 * the refs (UUIDs) of what it created, so that later operations of the same
 * transaction can use them. Lookups by name read the replica *as changed by
 * the operations already added*: after `lsAdd(t, 'sw0')`,
 * `lspAdd(t, 'sw0', 'p1')` finds the new switch; after `lspDel(t, 'p1')`, a
 * port group no longer lists `p1`. The overlay also follows the server's
 * garbage collection (a row of a non-root table that loses its last strong
 * reference disappears) and weak references (references to a deleted row
 * vanish), so what the DSL reads matches what the server will commit.
 *
 * Write through the `NbTxn` methods (`insert`, `update`, `mutate`, `delete`)
 * rather than `t.tx` directly when later lookups of the same transaction
 * must see the change.
 *
 * ```ts
 * const nb = createNb(client);
 * await nb.transact((t) => {
 *   const sw = lsAdd(t, 'sw0');
 *   lspAdd(t, sw, 'p1', { addresses: ['00:00:00:00:00:01 10.0.0.5'] });
 * });
 * ```
 * @module
 */

import type { InsertOf, RowOf, TableMap, TableName, UpdateOf } from '../ovsdb/schema/model.js';
import type { TransactionBuilder } from '../transactions/builder.js';
import { TransactionView } from '../transactions/view.js';
import type { TransactionViewReader } from '../transactions/view-overlay.js';
import type { NBTables } from './generated/model.js';

/** A Northbound table name (of the bundled model, or of the table map `DB`). */
export type NbTable<DB extends TableMap = NBTables> = TableName<DB>;
/** A Northbound row of table `T`, as read from the replica. */
export type NbRow<T extends TableName<DB>, DB extends TableMap = NBTables> = RowOf<DB, T>;
/** What may be inserted into table `T`. */
export type NbInsert<T extends TableName<DB>, DB extends TableMap = NBTables> = InsertOf<DB, T>;
/** What may be updated in table `T`. */
export type NbUpdate<T extends TableName<DB>, DB extends TableMap = NBTables> = UpdateOf<DB, T>;

/**
 * The replica reads the DSL needs: the database client (`connectDatabase`)
 * provides them.
 */
export interface NbReader<DB extends TableMap = NBTables> extends TransactionViewReader<DB> {}

/**
 * A Northbound transaction being built: the transaction builder `tx`, the
 * replica `reader`, and the changes made so far (see the module
 * documentation and `TransactionView`).
 *
 * @typeParam DB - the model's table map: the bundled `NBTables` (7.18.0) by
 *   default, or that of a model generated from another NB schema. Each DSL
 *   operation takes the `NbTxn` of any model that has the tables and
 *   columns it needs (see `NeedsOf`).
 */
export class NbTxn<DB extends TableMap = NBTables> extends TransactionView<DB> {
  /**
   * @param tx - the transaction builder (the `tx` of `transact(tx => …)`).
   * @param reader - the replica (the database client).
   */
  constructor(tx: TransactionBuilder<DB>, reader: NbReader<DB>) {
    super(tx, reader, { label: 'Northbound' });
  }
}
