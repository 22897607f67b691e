/**
 * A full dump over the framer's split threshold (8 MiB), from a real
 * ovsdb-server: the replica decodes its rows as they arrive (the reply's
 * reviver, `RequestOptions.reviveLargeReply`), and holds exactly what
 * `ovsdb-client dump` prints, every row and column.
 */

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectDatabase } from '../../src/client/open.js';
import { ReplicaFeed } from '../../src/client/replica/feed.js';
import { NB } from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { Operation, WireNamedUuid } from '../../src/ovsdb/wire/wire.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../src/testing/index.js';
import { dumpToRows, normalizeRow } from './helpers/fixtures.js';

const SWITCHES = 30;
const PER_SWITCH = 1000;
const DB = 'OVN_Northbound';

let server: OvsdbServerHandle;

beforeAll(async () => {
  server = await startOvsdbServer({
    schemaPath: join(import.meta.dirname, '../../schema/ovn-nb-7.18.0.ovsschema'),
  });
  const conn = await connect(server.unixRemote);
  try {
    for (let s = 0; s < SWITCHES; s++) {
      const ops: Operation[] = [];
      const refs: WireNamedUuid[] = [];
      for (let i = 0; i < PER_SWITCH; i++) {
        const n = s * PER_SWITCH + i;
        const mac = `0a:00:00:${(n >> 8).toString(16).padStart(2, '0')}:${(n & 255).toString(16).padStart(2, '0')}:01`;
        ops.push({
          op: 'insert',
          table: 'Logical_Switch_Port',
          'uuid-name': `p${i}`,
          row: {
            name: `lsp-${n}`,
            addresses: `${mac} 10.${s}.${i >> 8}.${i & 255}`,
            external_ids: ['map', [['pod', `ns${s}/pod-${n}`]]],
            options: ['map', [['requested-chassis', `node-${s}`]]],
            tag: (n % 4095) + 1,
          },
        });
        refs.push(['named-uuid', `p${i}`]);
      }
      ops.push({
        op: 'insert',
        table: 'Logical_Switch',
        row: { name: `sw${s}`, ports: ['set', refs] },
      });
      const replies = await conn.transact(DB, ops);
      expect(replies.every((r) => !('error' in r))).toBe(true);
    }
  } finally {
    await conn.close();
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('a full dump over 8 MiB from ovsdb-server', () => {
  it('is decoded as it arrives, and the replica holds what ovsdb-client dump prints', async () => {
    const revived = vi.spyOn(ReplicaFeed.prototype, 'dumpReviver');
    const client = connectDatabase({ remotes: server.unixRemote, model: NB });
    try {
      await client.ready;
      // The rows of both tables were decoded by the reviver, as they arrived.
      const tables = new Set(revived.mock.calls.map((c) => c[0]));
      expect(tables).toEqual(new Set(['Logical_Switch_Port', 'Logical_Switch']));
      expect(client.count('Logical_Switch_Port')).toBe(SWITCHES * PER_SWITCH);
      expect(client.stats.initialRows).toBe(SWITCHES * PER_SWITCH + SWITCHES);
      const dumped = dumpToRows(NB.schema, await server.ovsdbClient('--format=json', 'dump', DB));
      for (const table of ['Logical_Switch_Port', 'Logical_Switch'] as const) {
        const want = dumped[table]!;
        // `dump` leaves `_version` out: a `select` of it, by the same program.
        const [selected] = JSON.parse(
          await server.ovsdbClient(
            'transact',
            JSON.stringify([
              DB,
              { op: 'select', table, where: [], columns: ['_uuid', '_version'] },
            ]),
          ),
        ) as [{ rows: { _uuid: [string, string]; _version: [string, string] }[] }];
        expect(selected.rows).toHaveLength(want.size);
        for (const r of selected.rows) want.get(r._uuid[1])!['_version'] = r._version[1];
        expect(want.size).toBe(client.count(table));
        for (const [uuid, row] of want) {
          const got = client.get(table, uuid as never);
          expect(got, `${table} ${uuid}`).toBeDefined();
          expect(normalizeRow({ ...got })).toEqual(normalizeRow(row));
        }
      }
    } finally {
      revived.mockRestore();
      await client.close();
    }
  }, 120_000);
});
