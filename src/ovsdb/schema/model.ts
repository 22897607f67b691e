import type { DatabaseSchema } from './schema-types.js';

/**
 * The three TypeScript shapes of one table:
 * - `row`: a row as read from the replica or a `select` (every column, plus `_uuid` and `_version`);
 * - `insert`: what an `insert` may write (every column optional; OVSDB fills defaults);
 * - `update`: what an `update` may write (mutable columns only, all optional).
 *
 * `Schema` names the schema the table comes from (`'OVN_Northbound 7.18.0'`
 * in generated models), for the compiler's messages
 * ({@link ModelSchemaName}, {@link NotInModel}).
 */
export interface TableTypes<
  Row = object,
  Insert = object,
  Update = object,
  Schema extends string = string,
> {
  readonly row: Row;
  readonly insert: Insert;
  readonly update: Update;
  /** Type-level only (never set at run time): the schema's name and version. */
  readonly schema?: Schema;
}

/**
 * A map from table name to {@link TableTypes}: the `Database` interface of a model,
 * as Kysely has one per database. Generated code declares it, e.g. `NBTables`.
 */
export type TableMap = { readonly [table: string]: TableTypes };

/** The table names of a model's table map. */
export type TableName<DB extends TableMap> = Extract<keyof DB, string>;
/** The row type of table `T`. */
export type RowOf<DB extends TableMap, T extends TableName<DB>> = DB[T]['row'];
/** The insert type of table `T`. */
export type InsertOf<DB extends TableMap, T extends TableName<DB>> = DB[T]['insert'];
/** The update type of table `T`. */
export type UpdateOf<DB extends TableMap, T extends TableName<DB>> = DB[T]['update'];
/** The column names of table `T`, `_uuid` and `_version` included. */
export type ColumnOf<DB extends TableMap, T extends TableName<DB>> = Extract<
  keyof RowOf<DB, T>,
  string
>;

/**
 * The schema a table map comes from, as its generated tables say it
 * (`'OVN_Northbound 7.0.0'`); `string` when they do not.
 */
export type ModelSchemaName<DB> = {
  [T in keyof DB]: DB[T] extends { readonly schema?: infer S extends string } ? S : never;
}[keyof DB];

/**
 * The type of a value for column `C` of table `T` that the model `DB` does
 * not have: nothing can be assigned to it, and the compiler's message names
 * the table, the column and the model's schema:
 * `Type 'number' is not assignable to type 'NotInModel<"ACL", "tier", "OVN_Northbound 7.0.0">'`.
 */
export type NotInModel<T extends string, C extends string, Schema> = {
  readonly [K in `${T}.${C} is not a column of the model (${Schema & string})`]: never;
};

/**
 * A database model: the runtime schema of one OVSDB database together with the
 * compile-time table map `DB`. Code generation emits one per schema (e.g. `NB`),
 * and `connect()` and the transaction builder are typed by it.
 */
export interface DatabaseModel<DB extends TableMap = TableMap> {
  /** The schema's `name`, e.g. `OVN_Northbound`. */
  readonly name: string;
  /** The schema's `version`, e.g. `7.18.0`. */
  readonly version: string;
  /** The parsed schema embedded in the model. */
  readonly schema: DatabaseSchema;
  /** Type-level only: the table map. Always `undefined` at run time. */
  readonly tables?: DB;
}

/**
 * Build a model object from a parsed schema. The type parameter carries the
 * table map; the run-time value carries the schema.
 */
export function defineModel<DB extends TableMap>(schema: DatabaseSchema): DatabaseModel<DB> {
  return { name: schema.name, version: schema.version, schema };
}
