/**
 * W4's second client, in its own process: updates `external_ids` of every
 * logical switch port once (one row per transaction, pipelined on one raw
 * connection). Prepares its requests (untimed), prints `ready`, waits for a
 * line on stdin, then commits the warm-up updates (`gen=0` on the first
 * `WARMUP` ports, `seq=w<i>`) and prints `warm`; waits for another
 * line, writes the timed updates (`gen=1`, `seq=<i>`), waits for every
 * reply, and prints `{"replies":…}`.
 *
 * Usage: node --import tsx bench/workloads/w4-writer.ts SOCKET COUNT WARMUP
 * @module
 */

import { createInterface } from 'node:readline';
import { DB, transactText } from '../lib/nb-data.js';
import { RawClient } from '../lib/raw-client.js';

const [socketPath, countArg, warmUpArg] = process.argv.slice(2);
const count = Number(countArg);

const c = await RawClient.open(socketPath!);
const r = (await c.request('transact', [
  DB,
  { op: 'select', table: 'Logical_Switch_Port', where: [], columns: ['_uuid', 'name'] },
])) as [{ rows: { _uuid: [string, string]; name: string }[] }];
const rows = r[0].rows.sort((a, b) => a.name.localeCompare(b.name));
if (rows.length < count) throw new Error(`only ${rows.length} ports to update, need ${count}`);
/** One `external_ids` update of `row` per transaction, `id` the request id. */
const update = (row: { _uuid: [string, string] }, gen: string, seq: string, id: number) =>
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
              ['gen', gen],
              ['seq', seq],
            ],
          ],
        },
      },
    ],
    id,
  );
const warmUp = Number(warmUpArg);
if (!Number.isInteger(warmUp) || warmUp < 0 || warmUp > count) {
  throw new Error(`WARMUP must be an integer from 0 to ${count}, got ${warmUpArg}`);
}
const warmUpRequests = rows.slice(0, warmUp).map((row, i) => update(row, '0', `w${i}`, i));
const requests = rows.slice(0, count).map((row, i) => update(row, '1', String(i), warmUp + i));
/** Write `texts` (100 per write) and wait for all their replies. */
async function commitAll(texts: readonly string[]): Promise<void> {
  const base = c.count;
  for (let i = 0; i < texts.length; i += 100) c.write(texts.slice(i, i + 100).join(''));
  await c.until(base + texts.length);
}
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise<void>((resolve) => lines.once('line', () => resolve()));
await nextLine();
await commitAll(warmUpRequests);
process.stdout.write('warm\n');
await nextLine();
lines.close();
await commitAll(requests);
c.close();
process.stdout.write(`${JSON.stringify({ replies: requests.length })}\n`);
