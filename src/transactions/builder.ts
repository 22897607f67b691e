/**
 * The transaction builder: the `tx` a transaction callback receives. Each
 * method checks its arguments with the shared validators, encodes them, and
 * appends one OVSDB operation; {@link TransactionBuilder.build} then returns
 * the immutable {@link CompiledTransaction}, ready to send (or to show, for a
 * dry run).
 * @module
 */

import type {
  ColumnOf,
  DatabaseModel,
  InsertOf,
  RowOf,
  TableMap,
  TableName,
  UpdateOf,
} from '../ovsdb/schema/model.js';
import type { TableSchema } from '../ovsdb/schema/schema-types.js';
import { compileWhere, type Where } from '../ovsdb/values/conditions.js';
import { compileTableCodec, defaultValue, type EncodeContext } from '../ovsdb/values/datum.js';
import { isUuid, newUuid, type Uuid } from '../ovsdb/values/uuid.js';
import { columnValueProblem, validateRow } from '../ovsdb/values/validators.js';
import { DatumError, OvsdbError, ProtocolError } from '../ovsdb/wire/errors.js';
import { preview } from '../ovsdb/wire/json.js';
import type { Operation, WireRow } from '../ovsdb/wire/wire.js';
import type { ReplicaReader } from './executor.js';
import { OperationHandle } from './handles.js';
import { compileMutations, type MutationOf } from './mutations.js';
import type { Ref } from './ref.js';

/** Options of {@link TransactionBuilder.insert}. */
export interface InsertOptions<T extends string> {
  /** The new row's UUID (default: a fresh random one). */
  readonly uuid?: Uuid<T> | undefined;
}

/** Options of {@link TransactionBuilder.select}. */
export interface SelectOptions<C extends string> {
  /** Sort the rows by these columns (an Open vSwitch extension of `select`). */
  readonly sort?: readonly C[] | undefined;
}

/** Options of {@link TransactionBuilder.wait}. */
export interface WaitOptions<R, C extends keyof R> {
  /** The columns compared. */
  readonly columns: readonly C[];
  /** Wait until the selected rows' `columns` are (`==`) or are not (`!=`) exactly `rows`. */
  readonly until: '==' | '!=';
  /** The expected rows (their `columns`), in any order. */
  readonly rows: readonly Pick<R, C>[];
  /**
   * How long the server may wait, in ms; 0 fails at once with "timed out"
   * when the condition does not hold. Default: no limit (the server waits
   * until the condition holds, or the transaction is cancelled).
   */
  readonly timeout?: number | undefined;
}

/** A row inserted by a compiled transaction. */
export interface InsertedRow {
  /** The insert's index among the operations. */
  readonly index: number;
  /** The table. */
  readonly table: string;
  /** The row's client-chosen UUID (its values are the operation's `row`). */
  readonly uuid: string;
}

/** A `verify` of a compiled transaction: its `wait` operation and what it asserts. */
export interface VerifiedRow {
  /** The `wait`'s index among the operations. */
  readonly index: number;
  /** The table. */
  readonly table: string;
  /** The row's UUID. */
  readonly uuid: string;
  /** The columns asserted. */
  readonly columns: readonly string[];
  /** The asserted values (JS representation). */
  readonly values: Readonly<Record<string, unknown>>;
}

/**
 * A built transaction: the exact operations to send and what the execution
 * layer needs to interpret the reply. Immutable.
 */
export interface CompiledTransaction {
  /** The database (the model's name): the first `transact` parameter. */
  readonly database: string;
  /** The operations, as sent: `["<database>", ...ops]` are the `transact` params. */
  readonly ops: readonly Operation[];
  /** The inserted rows, with their client-chosen UUIDs. */
  readonly inserts: readonly InsertedRow[];
  /** The `verify` assertions. */
  readonly verifies: readonly VerifiedRow[];
  /** True when no operation writes (only select, wait, comment, assert). */
  readonly readOnly: boolean;
}

/** The `verifies` of the (many) transactions without one. */
const NO_VERIFIES: readonly VerifiedRow[] = Object.freeze([]);

/** OVSDB's `<id>`: lock names must be ids. */
const ID_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const invalidDefaults = new WeakMap<TableSchema, readonly [string, string][]>();

/** The columns of `table` whose default value breaks their own constraints (an insert must give them). */
function columnsWithInvalidDefault(table: TableSchema): readonly [string, string][] {
  let out = invalidDefaults.get(table);
  if (out === undefined) {
    const list: [string, string][] = [];
    for (const name of table.columnNames) {
      const column = table.columns[name]!;
      const problem = columnValueProblem(column, defaultValue(column));
      if (problem !== undefined) list.push([name, problem]);
    }
    out = list;
    invalidDefaults.set(table, out);
  }
  return out;
}

/** The encode context of one transaction: client-chosen UUID → `uuid-name` of its insert. */
class NamedUuids implements EncodeContext {
  readonly names = new Map<string, string>();
  namedUuid(uuid: string): string | undefined {
    return this.names.get(uuid);
  }
}

/** `obj[key] = value`, safe for a column named `__proto__`. */
function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function countOf(result: Readonly<Record<string, unknown>>): number {
  const n = result['count'];
  if (typeof n !== 'number') {
    throw new ProtocolError(`expected a "count" in the operation's result, got ${preview(result)}`);
  }
  return n;
}

/**
 * Builds one atomic OVSDB transaction over model `DB`. Every method checks
 * its arguments before anything is sent, and throws a {@link DatumError}
 * naming the table, column, value and rule they break.
 *
 * Get one from `transact(tx => …)`; do not keep it after the callback
 * returns (it is sealed then, and every method throws).
 *
 * @typeParam DB - the model's table map, e.g. `NBTables`.
 */
export class TransactionBuilder<DB extends TableMap> {
  private readonly ops: Operation[] = [];
  private readonly inserts: InsertedRow[] = [];
  private readonly verifies: VerifiedRow[] = [];
  private readonly ctx = new NamedUuids();
  private writes = false;
  private sealed = false;

  /**
   * @param model - the database model.
   * @param replica - the replica `verify` reads (optional otherwise).
   */
  constructor(
    readonly model: DatabaseModel<DB>,
    private readonly replica?: ReplicaReader<DB> | undefined,
  ) {}

  /** The number of operations so far. */
  get size(): number {
    return this.ops.length;
  }

  /**
   * Insert a row, with a client-chosen UUID (Open vSwitch 2.13+): the
   * returned {@link Ref} is the row's final UUID. Use it to reference the row
   * in the same transaction (it travels as `named-uuid`) and afterwards.
   *
   * ```ts
   * const port = tx.insert('Logical_Switch_Port', { name: 'lsp1', addresses: ['router'] });
   * // {"op":"insert","table":"Logical_Switch_Port","row":{"name":"lsp1","addresses":["set",["router"]]},
   * //  "uuid":"<port>","uuid-name":"row0"}
   * ```
   *
   * Columns left out get OVSDB's default; a column whose default breaks its
   * own constraints (an enum without `""`, a range without 0) must be given.
   * @throws DatumError for an unknown column, `_uuid`/`_version`, an invalid
   *   value, or a missing column that has no valid default.
   */
  insert<T extends TableName<DB>>(
    table: T,
    row: InsertOf<DB, NoInfer<T>>,
    options?: InsertOptions<NoInfer<T>>,
  ): Ref<T> {
    this.check();
    const schema = this.table(table);
    const r = row as Readonly<Record<string, unknown>>;
    validateRow(schema, r, 'insert');
    for (const [name, problem] of columnsWithInvalidDefault(schema)) {
      if (r[name] === undefined) {
        throw new DatumError(
          table,
          name,
          undefined,
          `column ${name} must be given: its default value is invalid (${problem})`,
        );
      }
    }
    let uuid: string;
    if (options?.uuid !== undefined) {
      if (!isUuid(options.uuid)) {
        throw new DatumError(
          table,
          '_uuid',
          options.uuid,
          `${JSON.stringify(options.uuid)} is not a UUID`,
        );
      }
      uuid = options.uuid.toLowerCase();
      if (this.ctx.names.has(uuid)) {
        throw new DatumError(
          table,
          '_uuid',
          uuid,
          'this transaction already inserts a row with this UUID',
        );
      }
    } else {
      uuid = newUuid();
    }
    const name = `row${this.inserts.length}`;
    // Named before encoding, so that the row may reference itself.
    this.ctx.names.set(uuid, name);
    let wire: WireRow;
    try {
      wire = compileTableCodec(schema).encodeRow(r, this.ctx) as WireRow;
    } catch (e) {
      this.ctx.names.delete(uuid);
      throw e;
    }
    const index = this.ops.length;
    this.ops.push({ op: 'insert', table, row: wire, uuid, 'uuid-name': name });
    this.inserts.push({ index, table, uuid });
    this.writes = true;
    return uuid as Ref<T>;
  }

  /**
   * Set columns of the matching rows. Only mutable columns can be written.
   * The result is the number of rows matched.
   *
   * ```ts
   * tx.update('Logical_Switch_Port', { name: 'lsp1' }, { enabled: false });
   * // {"op":"update","table":"Logical_Switch_Port","where":[["name","==","lsp1"]],"row":{"enabled":false}}
   * ```
   * @throws DatumError for an unknown or immutable column or an invalid value.
   */
  update<T extends TableName<DB>>(
    table: T,
    where: Where<DB, NoInfer<T>>,
    row: UpdateOf<DB, NoInfer<T>>,
  ): OperationHandle<number> {
    this.check();
    const schema = this.table(table);
    const r = row as Readonly<Record<string, unknown>>;
    validateRow(schema, r, 'update');
    const conditions = compileWhere(schema, where, this.ctx);
    const wire = compileTableCodec(schema).encodeRow(r, this.ctx) as WireRow;
    this.writes = true;
    return this.push({ op: 'update', table, where: conditions, row: wire }, countOf);
  }

  /**
   * Apply mutations to the matching rows: set `insert`/`delete`, map
   * `insert` (pairs), `delete` (keys or pairs), and `+=`, `-=`, `*=`, `/=`,
   * `%=` on numbers. The result is the number of rows matched.
   *
   * ```ts
   * tx.mutate('Logical_Switch', sw._uuid, [
   *   ['ports', 'insert', [port]],
   *   ['external_ids', 'delete', ['stale']],
   * ]);
   * // {"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw>"]]],
   * //  "mutations":[["ports","insert",["set",[["named-uuid","row0"]]]],["external_ids","delete",["set",["stale"]]]]}
   * ```
   * @throws DatumError for an immutable column, a mutator the column's type
   *   does not allow, an invalid value, or a division by zero.
   */
  mutate<T extends TableName<DB>>(
    table: T,
    where: Where<DB, NoInfer<T>>,
    mutations: readonly MutationOf<DB, NoInfer<T>>[],
  ): OperationHandle<number> {
    this.check();
    const schema = this.table(table);
    const conditions = compileWhere(schema, where, this.ctx);
    const wire = compileMutations(schema, mutations, this.ctx);
    this.writes = true;
    return this.push({ op: 'mutate', table, where: conditions, mutations: wire }, countOf);
  }

  /**
   * Delete the matching rows. The result is the number of rows deleted.
   *
   * ```ts
   * tx.delete('ACL', [['priority', '<', 100]]);
   * // {"op":"delete","table":"ACL","where":[["priority","<",100]]}
   * ```
   */
  delete<T extends TableName<DB>>(table: T, where: Where<DB, NoInfer<T>>): OperationHandle<number> {
    this.check();
    const schema = this.table(table);
    const conditions = compileWhere(schema, where, this.ctx);
    this.writes = true;
    return this.push({ op: 'delete', table, where: conditions }, countOf);
  }

  /**
   * Read the matching rows as of this point of the transaction (every column,
   * or `columns` only). The result is the rows, typed.
   *
   * ```ts
   * const up = tx.select('Logical_Switch_Port', [['up', '==', true]], ['name', 'addresses'], { sort: ['name'] });
   * // {"op":"select","table":"Logical_Switch_Port","where":[["up","==",true]],
   * //  "columns":["name","addresses"],"sort":["name"]}
   * // result: { name: string; addresses: readonly string[] }[]
   * ```
   */
  select<T extends TableName<DB>>(
    table: T,
    where: Where<DB, NoInfer<T>>,
  ): OperationHandle<RowOf<DB, T>[]>;
  select<T extends TableName<DB>, C extends ColumnOf<DB, T>>(
    table: T,
    where: Where<DB, NoInfer<T>>,
    columns: readonly C[],
    options?: SelectOptions<ColumnOf<DB, T>>,
  ): OperationHandle<Pick<RowOf<DB, T>, C>[]>;
  select<T extends TableName<DB>>(
    table: T,
    where: Where<DB, NoInfer<T>>,
    columns?: readonly string[],
    options?: SelectOptions<string>,
  ): OperationHandle<unknown> {
    this.check();
    const schema = this.table(table);
    const conditions = compileWhere(schema, where, this.ctx);
    const op: Mutable<Extract<Operation, { op: 'select' }>> = {
      op: 'select',
      table,
      where: conditions,
    };
    if (columns !== undefined) {
      this.checkColumns(schema, columns, 'select');
      op.columns = [...columns];
    }
    if (options?.sort !== undefined) {
      this.checkColumns(schema, options.sort, 'select sort');
      op.sort = [...options.sort];
    }
    const codec = compileTableCodec(schema);
    return this.push(op, (result) => {
      const rows = result['rows'];
      if (!Array.isArray(rows)) {
        throw new ProtocolError(`expected "rows" in the select result, got ${preview(result)}`);
      }
      return rows.map((r: Readonly<Record<string, unknown>>) => codec.decodeRow(r));
    });
  }

  /**
   * Make the transaction wait (up to `timeout` ms) until the `columns` of the
   * matching rows are (`==`) or are not (`!=`) exactly `rows`; on timeout it
   * fails with "timed out".
   *
   * ```ts
   * tx.wait('Logical_Switch_Port', { name: 'lsp1' }, { columns: ['up'], until: '==', rows: [{ up: true }], timeout: 5000 });
   * // {"op":"wait","table":"Logical_Switch_Port","where":[["name","==","lsp1"]],"columns":["up"],
   * //  "until":"==","rows":[{"up":true}],"timeout":5000}
   * ```
   */
  wait<T extends TableName<DB>, C extends ColumnOf<DB, T>>(
    table: T,
    where: Where<DB, NoInfer<T>>,
    options: WaitOptions<RowOf<DB, T>, C>,
  ): void {
    this.check();
    const schema = this.table(table);
    const conditions = compileWhere(schema, where, this.ctx);
    const columns = options.columns as readonly string[];
    this.checkColumns(schema, columns, 'wait');
    if (options.until !== '==' && options.until !== '!=') {
      throw new DatumError(table, undefined, options.until, 'wait: until must be "==" or "!="');
    }
    const rows = options.rows.map((row) =>
      this.encodeColumns(schema, row as Readonly<Record<string, unknown>>, columns, 'wait'),
    );
    const op: Mutable<Extract<Operation, { op: 'wait' }>> = {
      op: 'wait',
      table,
      where: conditions,
      columns: [...columns],
      until: options.until,
      rows,
    };
    if (options.timeout !== undefined) {
      if (!Number.isSafeInteger(options.timeout) || options.timeout < 0) {
        throw new DatumError(
          table,
          undefined,
          options.timeout,
          'wait: timeout must be a non-negative integer (ms)',
        );
      }
      op.timeout = options.timeout;
    }
    this.ops.push(op);
  }

  /**
   * Assert that `columns` of `row` (read from the replica) still have the
   * values `row` holds: a `wait` with timeout 0 that fails the transaction
   * when another client changed them meanwhile. The transaction is then
   * replayed against the refreshed replica (see the `retries` option), so the
   * callback must be a pure function of the replica.
   *
   * ```ts
   * const sw = db.lookup('Logical_Switch', …)!; // inside the callback
   * tx.verify(sw, ['other_config']);
   * // {"op":"wait","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw>"]]],
   * //  "columns":["other_config"],"until":"==","rows":[{"other_config":["map",[…]]}],"timeout":0}
   * ```
   * @throws OvsdbError when the executor keeps no replica or the replica
   *   does not hold the row; DatumError when `row` lacks one of `columns`.
   */
  verify<R extends { readonly _uuid: Uuid }>(
    row: R,
    columns: readonly Exclude<Extract<keyof R, string>, '_uuid'>[],
  ): void {
    this.check();
    const replica = this.replica;
    if (replica === undefined) {
      throw new OvsdbError('verify needs a replica: this executor keeps none');
    }
    const uuid = row?._uuid;
    if (!isUuid(uuid)) {
      throw new DatumError(undefined, '_uuid', uuid, 'verify needs a row with a _uuid');
    }
    let table: string | undefined;
    for (const name of Object.keys(this.model.schema.tables) as TableName<DB>[]) {
      if (replica.isMonitored(name) && replica.get(name, uuid) !== undefined) {
        table = name;
        break;
      }
    }
    if (table === undefined) {
      throw new OvsdbError(`verify: the replica has no row ${uuid}`);
    }
    const schema = this.table(table);
    const cols = columns as readonly string[];
    this.checkColumns(schema, cols, 'verify');
    const r = row as unknown as Readonly<Record<string, unknown>>;
    const values: Record<string, unknown> = {};
    for (const c of cols) {
      if (!(c in r)) {
        throw new DatumError(
          table,
          c,
          undefined,
          `verify: the row has no value for ${c} (is the column monitored?)`,
        );
      }
      setMember(values, c, r[c]);
    }
    const index = this.ops.length;
    this.ops.push({
      op: 'wait',
      table,
      where: [['_uuid', '==', ['uuid', uuid.toLowerCase()]]],
      columns: [...cols],
      until: '==',
      rows: [this.encodeColumns(schema, values, cols, 'verify')],
      timeout: 0,
    });
    this.verifies.push({ index, table, uuid: uuid.toLowerCase(), columns: [...cols], values });
  }

  /**
   * Add a comment to the server's log for this transaction.
   *
   * ```ts
   * tx.comment('add lsp1'); // {"op":"comment","comment":"add lsp1"}
   * ```
   */
  comment(text: string): void {
    this.check();
    if (typeof text !== 'string') throw new TypeError('comment: text must be a string');
    this.ops.push({ op: 'comment', comment: text });
  }

  /**
   * Fail the transaction with "not owner" unless this session holds lock
   * `name`.
   *
   * ```ts
   * tx.assertLock('ovn_northd'); // {"op":"assert","lock":"ovn_northd"}
   * ```
   */
  assertLock(name: string): void {
    this.check();
    if (typeof name !== 'string' || !ID_RE.test(name)) {
      throw new TypeError(
        `assertLock: a lock name is an id (letters, digits and _, not starting with a digit), got ${JSON.stringify(name)}`,
      );
    }
    this.ops.push({ op: 'assert', lock: name });
  }

  /**
   * Make the transaction fail with "aborted" (nothing commits).
   *
   * ```ts
   * tx.abort(); // {"op":"abort"}
   * ```
   */
  abort(): void {
    this.check();
    this.ops.push({ op: 'abort' });
  }

  /**
   * Seal the builder and return the compiled transaction. Called by the
   * execution layer after the callback returns.
   * @param extra - operations to append (e.g. the `comment` option).
   */
  build(extra: readonly Operation[] = []): CompiledTransaction {
    this.check();
    this.sealed = true;
    // The builder is sealed: its arrays become the compiled transaction's.
    const ops = this.ops;
    for (const op of extra) ops.push(op);
    let aborts = false;
    for (const op of ops) {
      Object.freeze(op);
      if (op.op === 'abort') aborts = true;
    }
    return Object.freeze({
      database: this.model.name,
      ops: Object.freeze(ops),
      inserts: Object.freeze(this.inserts),
      verifies: this.verifies.length === 0 ? NO_VERIFIES : Object.freeze(this.verifies),
      readOnly: !this.writes && !aborts,
    });
  }

  // ---- internals ------------------------------------------------------------------

  private check(): void {
    if (this.sealed) {
      throw new OvsdbError('this transaction was already built: use tx only inside its callback');
    }
  }

  private table(name: string): TableSchema {
    const schema = this.model.schema.tables[name];
    if (schema === undefined) {
      throw new DatumError(
        name,
        undefined,
        undefined,
        `database ${this.model.name} has no table ${name}`,
      );
    }
    return schema;
  }

  private checkColumns(schema: TableSchema, columns: readonly string[], what: string): void {
    if (!Array.isArray(columns)) {
      throw new DatumError(schema.name, undefined, columns, `${what}: columns must be a list`);
    }
    for (const c of columns) {
      if (typeof c !== 'string' || schema.columns[c] === undefined) {
        throw new DatumError(
          schema.name,
          String(c),
          undefined,
          `${what}: table ${schema.name} has no column ${String(c)}`,
        );
      }
    }
  }

  private encodeColumns(
    schema: TableSchema,
    row: Readonly<Record<string, unknown>>,
    columns: readonly string[],
    what: string,
  ): WireRow {
    const codec = compileTableCodec(schema);
    const out: Record<string, unknown> = {};
    for (const c of columns) {
      const value = row[c];
      const column = schema.columns[c]!;
      if (value === undefined) {
        throw new DatumError(schema.name, c, undefined, `${what}: each row must give every column`);
      }
      const problem = columnValueProblem(column, value);
      if (problem !== undefined) throw new DatumError(schema.name, c, value, `${what}: ${problem}`);
      setMember(out, c, codec.columns[c]!.encode(value, this.ctx));
    }
    return out as WireRow;
  }

  private push<V>(
    op: Operation,
    decode: (result: Readonly<Record<string, unknown>>) => V,
  ): OperationHandle<V> {
    const index = this.ops.length;
    this.ops.push(op);
    return new OperationHandle<V>(index, op.op, (op as { table: string }).table, decode);
  }
}
