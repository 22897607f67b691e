/**
 * Natural keys: which columns name a row of each table. A table's key is
 * its first schema index, unless a {@link KeySpecs} entry gives one; a
 * table without an index needs one declared. The key of a non-root table
 * without an index is scoped to the parent row that holds it (an ACL is
 * known by its direction, priority and match *in* its switch or port
 * group).
 * @module
 */

import type { ColumnOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import type { ColumnSchema, DatabaseSchema, TableSchema } from '../ovsdb/schema/schema-types.js';
import { DesiredStateError } from './errors.js';

/** The key of one table. */
export interface TableKeySpec<Column extends string = string> {
  /** The columns whose values name a row. */
  readonly columns: readonly Column[];
  /**
   * Whether the key is scoped to the parent row that holds the row (default:
   * true for a non-root table whose key is not a schema index).
   */
  readonly scoped?: boolean | undefined;
}

/**
 * Key specifications per table. Columns the model lacks are dropped (a key
 * written for a newer model works with an older one), so one spec serves
 * every model version.
 *
 * ```ts
 * const keys: KeySpecs<NBTables> = {
 *   ACL: { columns: ['direction', 'priority', 'match'] },
 *   Logical_Switch: { columns: ['name'] },
 * };
 * ```
 */
export type KeySpecs<DB extends TableMap> = {
  readonly [T in TableName<DB>]?: TableKeySpec<ColumnOf<DB, T>>;
};

/** A table's resolved key. */
export interface ResolvedKey {
  readonly columns: readonly string[];
  readonly scoped: boolean;
  /** True when the columns are a schema index (unique in the database). */
  readonly unique: boolean;
}

/** The keys of every table of a schema, and its parent relations. */
export interface ResolvedKeys {
  get(table: string): ResolvedKey | undefined;
  /** The column of `parent` that holds rows of `child`. */
  parentColumn(parent: string, child: string, column?: string): string;
  /** Every (parent table, column) whose strong references hold rows of `child`. */
  parentsOf(child: string): readonly (readonly [string, string])[];
}

/**
 * The non-root table whose rows `column` holds (a strong reference, not a
 * map), or `undefined`: such a column holds a parent's children.
 */
export function childTableOf(schema: DatabaseSchema, column: ColumnSchema): string | undefined {
  const t = column.type;
  const ref = t.key.refTable;
  if (ref === undefined || t.key.refType === 'weak' || t.value !== undefined) return undefined;
  return schema.tables[ref]?.isRoot === false ? ref : undefined;
}

function strongRefColumns(table: TableSchema, child: string): string[] {
  const out: string[] = [];
  for (const name of table.columnNames) {
    const t = table.columns[name]!.type;
    if (t.key.refTable === child && t.key.refType !== 'weak' && t.value === undefined) {
      out.push(name);
    }
  }
  return out;
}

/**
 * Resolve the key of every table of `schema`: the spec's entry, else the
 * first schema index.
 * @throws DesiredStateError for a spec naming an unknown table, or a key
 *   with no column the model has.
 */
export function resolveKeys(
  schema: DatabaseSchema,
  specs: KeySpecs<TableMap> | undefined,
): ResolvedKeys {
  const keys = new Map<string, ResolvedKey>();
  const given = (specs ?? {}) as Readonly<Record<string, TableKeySpec | undefined>>;
  for (const name of Object.keys(given)) {
    const spec = given[name];
    if (spec === undefined) continue;
    const table = schema.tables[name];
    if (table === undefined) continue; // a key for a table of another model version
    if (!Array.isArray(spec.columns)) {
      throw new DesiredStateError('bad-key-spec', `keys.${name}.columns must be an array`, {
        table: name,
      });
    }
    const columns = spec.columns.filter((c) => table.columns[c] !== undefined);
    if (columns.length === 0) {
      throw new DesiredStateError(
        'bad-key-spec',
        `keys.${name}: none of the columns ${spec.columns.join(', ')} exists in ${schema.name} ${schema.version}`,
        { table: name },
      );
    }
    const unique = table.indexes.some(
      (ix) => ix.length === columns.length && ix.every((c) => columns.includes(c)),
    );
    keys.set(name, { columns, unique, scoped: spec.scoped ?? (!table.isRoot && !unique) });
  }
  for (const name of Object.keys(schema.tables)) {
    if (keys.has(name)) continue;
    const table = schema.tables[name]!;
    const index = table.indexes[0];
    if (index !== undefined) keys.set(name, { columns: index, unique: true, scoped: false });
  }
  const parents = new Map<string, (readonly [string, string])[]>();
  for (const pname of Object.keys(schema.tables)) {
    const p = schema.tables[pname]!;
    for (const cname of p.columnNames) {
      const ref = childTableOf(schema, p.columns[cname]!);
      if (ref === undefined) continue;
      let list = parents.get(ref);
      if (list === undefined) {
        list = [];
        parents.set(ref, list);
      }
      list.push([pname, cname]);
    }
  }
  return {
    get: (table) => keys.get(table),
    parentsOf: (child) => parents.get(child) ?? [],
    parentColumn(parent, child, column) {
      const p = schema.tables[parent];
      if (p === undefined) {
        throw new DesiredStateError(
          'bad-parent',
          `${child}: the parent table ${parent} does not exist`,
          {
            table: child,
          },
        );
      }
      const columns = strongRefColumns(p, child);
      if (column !== undefined) {
        if (!columns.includes(column)) {
          throw new DesiredStateError(
            'bad-parent',
            `${child}: ${parent}.${column} is not a strong reference set to ${child}`,
            { table: child, column },
          );
        }
        return column;
      }
      if (columns.length === 1) return columns[0]!;
      throw new DesiredStateError(
        'bad-parent',
        columns.length === 0
          ? `${child}: ${parent} has no column that holds ${child} rows`
          : `${child}: ${parent} holds ${child} rows in ${columns.join(' and ')}: say which with { column }`,
        { table: child },
      );
    },
  };
}
