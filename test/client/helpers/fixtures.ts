/**
 * Shared pieces of the replica tests: the small `Test` model, raw writers,
 * conversion of `ovsdb-client dump` output to replica rows, and waiting.
 */

import { beforeAll } from 'vitest';
import type { DatabaseClient } from '../../../src/client/client.js';
import type { StatusEvent } from '../../../src/client/index.js';
import { connectDatabase } from '../../../src/client/open.js';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { defineModel, type TableTypes } from '../../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../../src/ovsdb/schema/schema-types.js';
import { compileTableCodec } from '../../../src/ovsdb/values/datum.js';
import type { Uuid } from '../../../src/ovsdb/values/uuid.js';
import { TEST_SCHEMA } from '../../helpers/server.js';
import type { TargetFixture } from '../../helpers/targets.js';

/** A row of `Test.Item`. */
export interface Item {
  readonly _uuid: Uuid<'Item'>;
  readonly _version: Uuid;
  readonly name: string;
  readonly n: number;
  readonly tags: readonly string[];
  readonly opts: Readonly<Record<string, string>>;
}

/** The table map of the `Test` database (only `Item` is typed precisely). */
export type TestTables = {
  readonly Item: TableTypes<Item, Partial<Item>, Partial<Item>>;
  readonly Root: TableTypes<{
    readonly _uuid: Uuid<'Root'>;
    readonly connections: readonly Uuid[];
  }>;
  readonly Connection: TableTypes<{
    readonly _uuid: Uuid<'Connection'>;
    readonly target: string;
    readonly inactivity_probe: number | null;
  }>;
};

/** The `Test` database model. */
export const TEST_MODEL = defineModel<TestTables>(parseSchema(TEST_SCHEMA));

/** Open a raw connection (for a second, independent writer). */
export function rawConnection(remote: string): Promise<OvsdbConnection> {
  return connect(remote);
}

/**
 * Open `count` raw writers straight to the server's socket (never through
 * the bridge) in `beforeAll`; they close with the fixture. The array fills
 * when the hook ran.
 */
export function useRawWriters(fx: TargetFixture, count: number): readonly OvsdbConnection[] {
  const writers: OvsdbConnection[] = [];
  beforeAll(async () => {
    for (let i = 0; i < count; i++) writers.push(await rawConnection(fx.unixRemote));
    fx.onClose(() => {
      for (const w of writers.splice(0)) w.close();
    });
  });
  return writers;
}

/** Open a database client of {@link TEST_MODEL} the target's way; it closes with the fixture. */
export function testClientOpener(
  fx: TargetFixture,
): (
  options?: Partial<Parameters<typeof connectDatabase<TestTables>>[0]>,
) => DatabaseClient<TestTables> {
  return (options = {}) => {
    const c = connectDatabase({ remotes: fx.remote, model: TEST_MODEL, ...options });
    fx.onClose(() => c.close());
    return c;
  };
}

/**
 * Resolves at the client's next `resynced` status event (a sync after a
 * reconnect); call it before causing the reconnect.
 */
export function nextResync(client: {
  onStatus(handler: (event: StatusEvent) => void): () => void;
}): Promise<void> {
  return new Promise((resolve) => {
    const off = client.onStatus((e) => {
      if (e.type === 'resynced') {
        off();
        resolve();
      }
    });
  });
}

/** Poll `condition` every 10 ms until it holds (rejects after `timeoutMs`). */
export async function until(
  condition: () => boolean,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface DumpTable {
  readonly caption?: string;
  readonly headings: readonly string[];
  readonly data: readonly (readonly unknown[])[];
}

/**
 * Parse `ovsdb-client --format=json dump` output into rows in the replica's
 * JS representation, per table (decoded with the datum codec of `schema`).
 */
export function dumpToRows(
  schema: DatabaseSchema,
  text: string,
): Record<string, Map<string, Record<string, unknown>>> {
  // One JSON document per table, concatenated (each on its own line).
  const docs: DumpTable[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t) docs.push(JSON.parse(t) as DumpTable);
  }
  const out: Record<string, Map<string, Record<string, unknown>>> = {};
  for (const doc of docs) {
    const name = doc.caption?.replace(/ table$/, '') ?? '';
    const table = schema.tables[name];
    if (table === undefined) continue;
    const codec = compileTableCodec(table);
    const rows = new Map<string, Record<string, unknown>>();
    for (const data of doc.data) {
      const wire: Record<string, unknown> = {};
      doc.headings.forEach((h, i) => {
        wire[h] = data[i];
      });
      const row = codec.decodeRow(wire);
      rows.set(row['_uuid'] as string, row);
    }
    out[name] = rows;
  }
  return out;
}

/** Sort set values so that rows can be compared whatever the element order. */
export function normalizeRow(row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = Array.isArray(v) ? [...v].sort() : v;
  }
  return out;
}
