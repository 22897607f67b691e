/**
 * The parsed, validated form of an `.ovsschema` document (RFC 7047 §3.2 and
 * ovsdb(7) "Schema Format"). {@link parseSchema} produces it; the datum codec,
 * validators, code generator and servers consume it.
 * @module
 */

/** The five OVSDB atomic types. */
export type AtomicType = 'integer' | 'real' | 'boolean' | 'string' | 'uuid';

/**
 * A JS atom value: reals are numbers; integers are numbers while safe
 * (|v| ≤ 2^53−1) and bigints beyond, up to the int64 bounds (see
 * `values/int64.ts`); UUIDs are strings.
 */
export type Atom = number | bigint | boolean | string;

/** `<base-type>`: an atomic type plus its constraints. Absent constraints are `undefined`. */
export interface BaseType {
  readonly type: AtomicType;
  /** Allowed values, when the schema gives an `enum`. Sorted as in the schema. */
  readonly enum?: readonly Atom[] | undefined;
  /** Canonical int64 (a number when safe, else a bigint). */
  readonly minInteger?: number | bigint | undefined;
  /** Canonical int64 (a number when safe, else a bigint). */
  readonly maxInteger?: number | bigint | undefined;
  readonly minReal?: number | undefined;
  readonly maxReal?: number | undefined;
  readonly minLength?: number | undefined;
  readonly maxLength?: number | undefined;
  /** For `uuid`: the table referenced. */
  readonly refTable?: string | undefined;
  /** For `uuid` with `refTable`: `strong` (default) or `weak`. */
  readonly refType?: 'strong' | 'weak' | undefined;
}

/**
 * How a column's value is represented in JS (see the datum codec):
 * - `scalar`: min 1, max 1, no value type: the bare atom `T`;
 * - `optional`: min 0, max 1, no value type: `T | null`;
 * - `set`: max > 1: `T[]`;
 * - `map`: a value type is present: `Record<K, V>`.
 */
export type ColumnKind = 'scalar' | 'optional' | 'set' | 'map';

/** `<type>`: key, optional value, and cardinality. */
export interface ColumnType {
  readonly key: BaseType;
  readonly value?: BaseType | undefined;
  /** 0 or 1. */
  readonly min: number;
  /** A positive integer, or `Infinity` for `"unlimited"`. */
  readonly max: number;
  readonly kind: ColumnKind;
}

/** `<column-schema>`. */
export interface ColumnSchema {
  readonly name: string;
  readonly type: ColumnType;
  /** Defaults to `false`. */
  readonly ephemeral: boolean;
  /** Defaults to `true`. `_uuid` and `_version` are immutable. */
  readonly mutable: boolean;
}

/** `<table-schema>`. `columns` includes the implicit `_uuid` and `_version` columns. */
export interface TableSchema {
  readonly name: string;
  readonly columns: Readonly<Record<string, ColumnSchema>>;
  /** The user-declared columns (no `_uuid`/`_version`), sorted by name. */
  readonly columnNames: readonly string[];
  /** Defaults to `Infinity`. */
  readonly maxRows: number;
  /**
   * Whether the table is in the root set. A non-root row that no strong reference
   * points to is deleted at commit. Per RFC 7047 §3.2, when no table of a schema
   * sets `isRoot`, every table is root; the parser applies that rule here.
   */
  readonly isRoot: boolean;
  /** Each index is a list of column names whose combined value is unique. */
  readonly indexes: readonly (readonly string[])[];
}

/** `<database-schema>`. */
export interface DatabaseSchema {
  readonly name: string;
  readonly version: string;
  readonly cksum?: string | undefined;
  readonly tables: Readonly<Record<string, TableSchema>>;
  /** The JSON the schema was parsed from, unchanged (what `get_schema` returns). */
  readonly json: unknown;
}
