/**
 * {@link Ref}: the UUID of a row inserted by the transaction being built.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';

declare const refBrand: unique symbol;

/**
 * The UUID of a row that `tx.insert(table, row)` adds. Inserts use
 * client-chosen UUIDs, so a `Ref` is the row's final UUID, known before the
 * transaction is sent; at run time it is that UUID string.
 *
 * A `Ref<T>` is a {@link Uuid}`<T>`, so it goes wherever the model expects a
 * reference to table `T`, and nowhere else:
 *
 * ```ts
 * await db.transact((tx) => {
 *   const port = tx.insert('Logical_Switch_Port', { name: 'lsp1' }); // Ref<'Logical_Switch_Port'>
 *   tx.mutate('Logical_Switch', sw._uuid, [['ports', 'insert', [port]]]);
 * });
 * // [{"op":"insert","table":"Logical_Switch_Port","row":{"name":"lsp1"},"uuid":"<port>","uuid-name":"row0"},
 * //  {"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw>"]]],
 * //   "mutations":[["ports","insert",["set",[["named-uuid","row0"]]]]]}]
 * ```
 *
 * Inside the transaction that inserts the row, the reference travels as
 * `["named-uuid", …]`; in later transactions it is an ordinary `["uuid", …]`.
 *
 * @typeParam T - the table the row is inserted into.
 */
export type Ref<T extends string = string> = Uuid<T> & { readonly [refBrand]: T };
