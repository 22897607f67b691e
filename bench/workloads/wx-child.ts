/**
 * One side of WX in a fresh process (run with `--expose-gc`), so that heaps
 * and peak RSS do not mix: one transaction that adds `COUNT` UUIDs to a
 * port group's `ports` (`mutate` … `insert`), from the UUIDs (made before
 * the clock starts) to the JSON text handed to the socket.
 *
 * - `ovnkit`: `openDatabase` (NB model) on `REMOTE`, then `db.transact`
 *   with the typed builder's `mutate`; the clock stops when the connection
 *   hands the request's text to its transport (a dialer that wraps Node's
 *   watches the write). The text is checked to hold the operation the raw
 *   side writes; the handle is then closed without waiting for the reply.
 * - `raw`: the wire operation built from the same UUIDs and
 *   `JSON.stringify` of the request.
 *
 * Prints `{"ms":…,"heapBytes":…,"peakRssBytes":…,"chars":…}`: the time,
 * the heap in use when the text is made over the heap before (after a full
 * GC), the process's peak RSS over its RSS before, and the text's length.
 *
 * Usage: node --expose-gc … bench/workloads/wx-child.ts ovnkit|raw REMOTE COUNT
 * @module
 */

import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../src/client/open.js';
import { NB } from '../../src/nb/generated/model.js';
import type { Dialer } from '../../src/ovsdb/transport/dial.js';
import { dialRemote } from '../../src/ovsdb/transport/dial-node.js';
import { newUuid, type Uuid } from '../../src/ovsdb/values/uuid.js';
import { DB } from '../lib/nb-data.js';
import { PORT_GROUP } from './wx-huge-transaction.js';

const [mode, remote, countArg] = process.argv.slice(2);
const count = Number(countArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

interface Out {
  ms: number;
  heapBytes: number;
  peakRssBytes: number;
  chars: number;
}

/** The memory of this process now, after a full GC. */
function baseline(): { heap: number; rss: number } {
  for (let i = 0; i < 4; i++) gc!();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

/** The result, from the start's memory and time `t0` to now. */
function measured(base: { heap: number; rss: number }, t0: number, chars: number): Out {
  const ms = performance.now() - t0;
  const heapBytes = process.memoryUsage().heapUsed - base.heap;
  const peakRssBytes = Math.max(0, process.resourceUsage().maxRSS * 1024 - base.rss);
  return { ms, heapBytes, peakRssBytes, chars };
}

/** The wire operation the raw client sends. */
function rawOp(uuids: readonly Uuid[]): Record<string, unknown> {
  return {
    op: 'mutate',
    table: 'Port_Group',
    where: [['name', '==', PORT_GROUP]],
    mutations: [['ports', 'insert', ['set', uuids.map((u) => ['uuid', u])]]],
  };
}

async function raw(uuids: readonly Uuid[]): Promise<Out> {
  const base = baseline();
  const t0 = performance.now();
  const text = JSON.stringify({ method: 'transact', params: [DB, rawOp(uuids)], id: 1 });
  return measured(base, t0, text.length);
}

async function ovnkit(uuids: readonly Uuid<'Logical_Switch_Port'>[]): Promise<Out> {
  let onText: (text: string) => void = () => {};
  const written = new Promise<string>((resolve) => {
    onText = resolve;
  });
  let base = { heap: 0, rss: 0 };
  let t0 = 0;
  let out: Out | undefined;
  // Node's dialer, with the transport's writes watched: the request's text is the large one.
  const dial: Dialer = async (r, options) => {
    const dialed = await dialRemote(r, options);
    const t = dialed.transport;
    return {
      ...dialed,
      transport: {
        kind: t.kind,
        description: t.description,
        attach: (handlers) => t.attach(handlers),
        write(text) {
          if (text.length >= count * 40) {
            out = measured(base, t0, text.length);
            onText(text);
          }
          return t.write(text);
        },
        close: () => t.close(),
      },
    };
  };
  const db = await openDatabase({ remotes: remote!, model: NB, dial });
  base = baseline();
  t0 = performance.now();
  const outcome = db.transact((tx) => {
    tx.mutate('Port_Group', [['name', '==', PORT_GROUP]], [['ports', 'insert', uuids]]);
  });
  outcome.catch(() => {});
  const text = await written;
  await db.close();
  const expected = JSON.stringify(rawOp(uuids));
  if (!text.includes(expected)) {
    throw new Error(`ovnkit wrote another operation: ${text.slice(0, 300)}…`);
  }
  return out!;
}

const uuids = Array.from({ length: count }, () => newUuid<'Logical_Switch_Port'>());
const out = mode === 'raw' ? await raw(uuids) : mode === 'ovnkit' ? await ovnkit(uuids) : undefined;
if (out === undefined) throw new Error(`unknown mode ${mode}`);
console.log(JSON.stringify(out));
