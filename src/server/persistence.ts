/**
 * The JSON snapshot that earlier versions of the in-memory server kept
 * (`dbFile`, format `ovnkit-ovsdb-snapshot`): read once, when such a file is
 * opened, to convert it into an OVSDB database file (see
 * `storage/db-file.ts`). Nothing writes this format any more.
 *
 * The file:
 * ```json
 * { "format": "ovnkit-ovsdb-snapshot", "version": 1,
 *   "databases": { "OVN_Northbound": { "schema": {…},
 *     "rows": { "Logical_Switch": { "<uuid>": { "_version": ["uuid", "…"], "name": "sw0", … } } } } } }
 * ```
 * Rows are in wire notation. On load, each row is checked against the schema
 * the server runs with (which may be newer than the one saved): columns the
 * schema no longer has are dropped and missing ones take their default.
 * @module
 */

import { readFileSync } from 'node:fs';
import type { BaseType } from '../ovsdb/schema/schema-types.js';
import { defaultDatum } from '../ovsdb/values/defaults.js';
import type { Datum } from '../ovsdb/values/sorted-datum.js';
import { newUuid } from '../ovsdb/values/uuid.js';
import { parseJson } from '../ovsdb/wire/json-text.js';
import { columnType, type Database, type Row } from './engine/database.js';
import { OpError } from './engine/op-error.js';
import { parseDatum } from './engine/values.js';

/** The `format` member of an ovnkit JSON snapshot (converted into a database file when opened). */
export const SNAPSHOT_FORMAT = 'ovnkit-ovsdb-snapshot';

/** The rows of one database in a snapshot: table → UUID → wire row. */
export type SnapshotRows = Record<string, Record<string, Record<string, unknown>>>;

/** A parsed snapshot file. */
export interface Snapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: 1;
  readonly databases: Record<string, { readonly schema: unknown; readonly rows: SnapshotRows }>;
}

/** A snapshot file could not be read or does not fit the schema. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
  constructor(
    /** The snapshot file. */
    readonly path: string,
    /** What is wrong, naming the database, table, row and column. */
    readonly reason: string,
  ) {
    super(`snapshot ${path}: ${reason}`);
  }
}

/**
 * Read the snapshot at `path`: undefined when the file does not exist.
 * @throws SnapshotError when it is not a snapshot.
 */
export function readSnapshot(path: string): Snapshot | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SnapshotError(path, `cannot read: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (e) {
    throw new SnapshotError(path, `not JSON: ${(e as Error).message}`);
  }
  const s = json as Partial<Snapshot> | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    s.format !== SNAPSHOT_FORMAT ||
    s.version !== 1 ||
    typeof s.databases !== 'object' ||
    s.databases === null
  ) {
    throw new SnapshotError(path, `not an ${SNAPSHOT_FORMAT} version 1 file`);
  }
  return s as Snapshot;
}

function strongTarget(base: BaseType | undefined): string | undefined {
  if (base === undefined || base.type !== 'uuid' || base.refTable === undefined) return undefined;
  return base.refType === 'weak' ? undefined : base.refTable;
}

/**
 * Replace the contents of `db` with `rows`, rebuilding its reference counts
 * and unique indexes.
 * @throws SnapshotError when a value does not fit the schema, a unique index
 *   is violated or a strong reference points to a missing row.
 */
export function restoreRows(db: Database, rows: SnapshotRows, path: string): void {
  const where = (table: string, uuid?: string, column?: string): string =>
    `database ${db.schema.name}, table ${table}${uuid === undefined ? '' : `, row ${uuid}`}${column === undefined ? '' : `, column ${column}`}`;
  for (const store of db.tables.values()) {
    store.rows.clear();
    store.refCounts.clear();
    for (const ix of store.indexes) ix.clear();
  }
  for (const [tableName, tableRows] of Object.entries(rows)) {
    const store = db.tables.get(tableName);
    if (store === undefined) continue;
    const table = store.schema;
    for (const [uuid, wire] of Object.entries(tableRows)) {
      const fields: Record<string, Datum> = {};
      for (const column of Object.keys(table.columns)) {
        const type = columnType(table, column);
        if (column === '_uuid') {
          fields[column] = { keys: [uuid.toLowerCase()] };
          continue;
        }
        const value = wire[column];
        if (value === undefined) {
          fields[column] = column === '_version' ? { keys: [newUuid()] } : defaultDatum(type);
          continue;
        }
        try {
          fields[column] = parseDatum(type, value, undefined);
        } catch (e) {
          const reason = e instanceof OpError ? e.message : String(e);
          throw new SnapshotError(path, `${where(tableName, uuid, column)}: ${reason}`);
        }
      }
      const row: Row = { uuid: uuid.toLowerCase(), fields };
      store.rows.set(row.uuid, row);
    }
  }
  for (const store of db.tables.values()) {
    const table = store.schema;
    store.schema.indexes.forEach((_, i) => {
      const index = store.indexes[i] as Map<string, string>;
      for (const row of store.rows.values()) {
        const key = store.indexKey(i, row.fields);
        if (index.has(key)) {
          throw new SnapshotError(
            path,
            `${where(table.name)}: rows ${index.get(key)} and ${row.uuid} have the same value for unique index (${(table.indexes[i] ?? []).join(', ')})`,
          );
        }
        index.set(key, row.uuid);
      }
    });
    for (const row of store.rows.values()) {
      for (const [column, c] of Object.entries(table.columns)) {
        const d = row.fields[column] as Datum;
        const parts: [string | undefined, readonly unknown[]][] = [
          [strongTarget(c.type.key), d.keys],
          [strongTarget(c.type.value), d.values ?? []],
        ];
        for (const [target, atoms] of parts) {
          if (target === undefined) continue;
          const targetStore = db.tables.get(target);
          for (const a of atoms) {
            const ref = a as string;
            if (ref === row.uuid) continue;
            if (targetStore?.rows.has(ref) !== true) {
              throw new SnapshotError(
                path,
                `${where(table.name, row.uuid, column)}: references missing row ${ref} of table ${target}`,
              );
            }
            targetStore.refCounts.set(ref, (targetStore.refCounts.get(ref) ?? 0) + 1);
          }
        }
      }
    }
  }
}
