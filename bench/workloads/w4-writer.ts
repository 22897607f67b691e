/**
 * W4's second client, in its own process: updates `external_ids` of every
 * logical switch port once (one row per transaction, pipelined on one raw
 * connection). Prepares its requests (untimed), prints `ready`, waits for a
 * line on stdin, writes them all, waits for every reply, and prints
 * `{"replies":…}`.
 *
 * Usage: node --import tsx bench/workloads/w4-writer.ts SOCKET COUNT
 * @module
 */

import { createInterface } from 'node:readline';
import { DB, transactText } from '../lib/nb-data.js';
import { RawClient } from '../lib/raw-client.js';

const [socketPath, countArg] = process.argv.slice(2);
const count = Number(countArg);

const c = await RawClient.open(socketPath!);
const r = (await c.request('transact', [
  DB,
  { op: 'select', table: 'Logical_Switch_Port', where: [], columns: ['_uuid', 'name'] },
])) as [{ rows: { _uuid: [string, string]; name: string }[] }];
const rows = r[0].rows.sort((a, b) => a.name.localeCompare(b.name));
if (rows.length < count) throw new Error(`only ${rows.length} ports to update, need ${count}`);
const requests = rows.slice(0, count).map((row, i) =>
  transactText(
    [
      {
        op: 'update',
        table: 'Logical_Switch_Port',
        where: [['_uuid', '==', row._uuid]],
        row: {
          external_ids: [
            'map',
            [
              ['gen', '1'],
              ['seq', String(i)],
            ],
          ],
        },
      },
    ],
    i,
  ),
);
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();
const base = c.count;
for (let i = 0; i < requests.length; i += 100) c.write(requests.slice(i, i + 100).join(''));
await c.until(base + requests.length);
c.close();
process.stdout.write(`${JSON.stringify({ replies: requests.length })}\n`);
