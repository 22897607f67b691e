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
 * Rows are in wire notation, which is also what a database file's records
 * hold: `storage/db-file.ts` replays them on the snapshot's own schema as
 * one record of inserts, with every check of a record read from a database
 * file, and converts the result to the schema the server runs with as
 * `ovsdb-tool convert` does.
 * @module
 */

import { readFileSync } from 'node:fs';
import { parseJson } from '../ovsdb/wire/json-text.js';

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

/** A file that starts as JSON could not be read, or is not an ovnkit JSON snapshot. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
  constructor(
    /** The snapshot file. */
    readonly path: string,
    /** What is wrong. */
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
