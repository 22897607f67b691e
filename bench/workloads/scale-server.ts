/**
 * The server rows of the scaling bench: populating ovsdb-server and
 * ovnkit-server with N Logical_Switch_Ports in N/250 switches, and the
 * series measured on them: the cost of one transaction that inserts a port
 * and adds it to a switch found by name (`where name == …`) or by `_uuid`,
 * the cost per row of a condition no index answers (a scan), and each
 * server's RSS.
 *
 * Commit samples are sequential (each transaction awaited), with the raw
 * client; their ports are removed again (untimed) after each sample so that
 * every switch keeps 250 ports and the table N rows whatever the number of
 * samples. Each cost is measured twice: as wall time seen by the client, and
 * as the CPU time the server process spent (all its threads, from
 * `/proc/<pid>/task/<tid>/schedstat`), which a loaded machine disturbs far
 * less.
 * @module
 */

import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DB, portAddress, portName, transactText } from '../lib/nb-data.js';
import { RawClient } from '../lib/raw-client.js';
import type {
  ScaleContext,
  ScaleSeries,
  ScaleServer,
  ScaleSubject,
  ScaleSwitch,
} from '../lib/scale-types.js';
import { type ServerKind, startBenchServer } from '../lib/servers.js';

/** Ports per switch. */
export const PORTS_PER_SWITCH = 250;
/** Untimed transactions before each commit sample. */
const WARMUP_TXNS = 50;

type TransactReply = ({ uuid?: [string, string]; error?: string; count?: number } | null)[];

/** The UUID an `insert` result holds. */
function insertedUuid(r: TransactReply, i: number, what: string): string {
  const u = r[i]?.uuid?.[1];
  if (u === undefined) throw new Error(`${what}: no UUID in ${JSON.stringify(r[i])}`);
  return u;
}

function check(results: unknown, what: string): TransactReply {
  const r = results as TransactReply;
  const bad = r.find((x) => x === null || x.error !== undefined);
  if (bad !== undefined) throw new Error(`${what} failed: ${JSON.stringify(bad)}`);
  return r;
}

/** Start a fresh server of `kind` and fill it with `n` ports in `n / 250` switches. */
export async function populate(
  kind: ServerKind,
  n: number,
  ctx: ScaleContext,
): Promise<ScaleServer> {
  const server = await startBenchServer(kind, ctx.root);
  try {
    const client = await RawClient.open(server.socketPath);
    const switches: ScaleSwitch[] = [];
    const count = Math.ceil(n / PORTS_PER_SWITCH);
    const t0 = performance.now();
    for (let s = 0; s < count; s++) {
      const name = `ls-${s}`;
      const first = s * PORTS_PER_SWITCH;
      const last = Math.min(n, first + PORTS_PER_SWITCH);
      const refs: unknown[] = [];
      const ops: unknown[] = [];
      for (let i = first; i < last; i++) {
        const a = portAddress(i);
        ops.push({
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: { name: portName(i), addresses: ['set', [a]], port_security: ['set', [a]] },
          'uuid-name': `p${i}`,
        });
        refs.push(['named-uuid', `p${i}`]);
      }
      ops.unshift({ op: 'insert', table: 'Logical_Switch', row: { name, ports: ['set', refs] } });
      const r = check(await client.request('transact', [DB, ...ops]), `populating ${name}`);
      switches.push({ name, uuid: insertedUuid(r, 0, name) });
      if (s % 200 === 199) ctx.log(`  ${kind} ${n}: ${last} ports`);
    }
    ctx.log(`  ${kind} ${n}: populated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return { kind, n, server, client, switches, nextPort: n };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/** Stop a populated server. */
export async function release(s: ScaleServer): Promise<void> {
  s.client.close();
  await s.server.stop();
}

/** How a commit sample finds its switch. */
type Lookup = 'name' | 'uuid';

/** The next one-port transaction: a new port, added to a switch spread over all of them. */
function portTxn(s: ScaleServer, lookup: Lookup, id: number): { text: string; sw: number } {
  const i = s.nextPort++;
  const sw = (i * 7919) % s.switches.length;
  const target = s.switches[sw] as ScaleSwitch;
  const a = portAddress(i);
  const where =
    lookup === 'name' ? ['name', '==', target.name] : ['_uuid', '==', ['uuid', target.uuid]];
  const ops = [
    {
      op: 'insert',
      table: 'Logical_Switch_Port',
      row: { name: portName(i), addresses: ['set', [a]], port_security: ['set', [a]] },
      'uuid-name': 'p',
    },
    {
      op: 'mutate',
      table: 'Logical_Switch',
      where: [where],
      mutations: [['ports', 'insert', ['named-uuid', 'p']]],
    },
  ];
  return { text: transactText(ops, id), sw };
}

/** The CPU time process `pid` has used so far, all threads, in ns (Linux). */
function cpuNs(pid: number | undefined): number {
  if (pid === undefined || pid < 0) throw new Error('the server process is not known');
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread has just exited.
    }
  }
  return ns;
}

/** What a sample reports: the client's wall time, or the server's CPU time. */
type Measure = 'wall' | 'cpu';

/** Elapsed wall or server CPU time of `fn`, in ms. */
async function timed(s: ScaleServer, measure: Measure, fn: () => Promise<void>): Promise<number> {
  const pid = s.server.pid;
  const c0 = measure === 'cpu' ? cpuNs(pid) : 0;
  const t0 = performance.now();
  await fn();
  return measure === 'cpu' ? (cpuNs(pid) - c0) / 1e6 : performance.now() - t0;
}

/**
 * Run `count` one-port transactions in sequence; returns the elapsed
 * milliseconds (wall or server CPU), then (untimed) removes the ports they
 * added.
 */
async function commitRun(
  s: ScaleServer,
  count: number,
  lookup: Lookup,
  measure: Measure,
): Promise<number> {
  const txns = Array.from({ length: count }, (_, j) => portTxn(s, lookup, j));
  const replies: Buffer[] = [];
  const c = s.client;
  c.onMessage = (b) => replies.push(b);
  let expected = c.count;
  const ms = await timed(s, measure, async () => {
    for (const t of txns) {
      c.write(t.text);
      await c.until(++expected);
    }
  });
  c.onMessage = undefined;
  // Check every reply and remove the ports again (dereferenced, they are garbage collected).
  const added = new Map<number, unknown[]>();
  replies.forEach((b, k) => {
    const msg = JSON.parse(b.toString('utf8')) as { result?: unknown };
    const r = check(msg.result, `${lookup} transaction ${k}`);
    if (r[1]?.count !== 1)
      throw new Error(`${lookup} transaction ${k} changed ${r[1]?.count} switches`);
    const sw = (txns[k] as { sw: number }).sw;
    const list = added.get(sw) ?? [];
    list.push(['uuid', insertedUuid(r, 0, `${lookup} transaction ${k}`)]);
    added.set(sw, list);
  });
  const cleanup = [...added].map(([sw, refs]) => ({
    op: 'mutate',
    table: 'Logical_Switch',
    where: [['_uuid', '==', ['uuid', (s.switches[sw] as ScaleSwitch).uuid]]],
    mutations: [['ports', 'delete', ['set', refs]]],
  }));
  check(await c.request('transact', [DB, ...cleanup]), 'removing the sample ports');
  return ms;
}

/** µs per transaction of `ctx.txns` one-port transactions, after a warmup. */
async function commitSample(
  s: ScaleServer,
  ctx: ScaleContext,
  lookup: Lookup,
  measure: Measure,
): Promise<number> {
  await commitRun(s, WARMUP_TXNS, lookup, measure);
  return ((await commitRun(s, ctx.txns, lookup, measure)) * 1000) / ctx.txns;
}

/**
 * Server CPU ns per row of `select … where tag > 4000` (no port has a tag:
 * every row is evaluated, none returned).
 */
async function scanSample(s: ScaleServer): Promise<number> {
  const c = s.client;
  const reps = Math.max(3, Math.round(3e6 / s.n));
  const text = (id: number) =>
    transactText(
      [
        {
          op: 'select',
          table: 'Logical_Switch_Port',
          where: [['tag', '>', 4000]],
          columns: ['_uuid'],
        },
      ],
      `scan-${id}`,
    );
  let expected = c.count;
  c.write(text(-1));
  await c.until(++expected);
  const ms = await timed(s, 'cpu', async () => {
    for (let k = 0; k < reps; k++) {
      c.write(text(k));
      await c.until(++expected);
    }
  });
  const r = (await c.request('transact', [
    DB,
    { op: 'select', table: 'Logical_Switch_Port', where: [['tag', '>', 4000]], columns: ['_uuid'] },
  ])) as { rows?: unknown[] }[];
  if (r[0]?.rows?.length !== 0) throw new Error(`scan returned ${JSON.stringify(r[0])}`);
  return (ms * 1e6) / (reps * s.n);
}

/** The resident set size of process `pid`, MB (Linux). */
function rssMb(pid: number | undefined): number {
  if (pid === undefined || pid < 0) throw new Error('the server process is not known');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) / 1024;
}

const SERVERS: readonly ScaleSubject[] = [
  { key: 'ovsdb-server', label: 'ovsdb-server', server: 'ovsdb-server', reference: true },
  { key: 'ovnkit-server', label: 'ovnkit-server', server: 'memory' },
];
const PAIR = ['ovnkit-server', 'ovsdb-server'] as const;

/** The server series. */
export const SERVER_SERIES: readonly ScaleSeries[] = [
  ...(['name', 'uuid'] as const).flatMap((lookup) =>
    (['wall', 'cpu'] as const).map(
      (measure): ScaleSeries => ({
        id: `commit-by-${lookup}${measure === 'cpu' ? '-cpu' : ''}`,
        title: `insert a port, add it to a switch found by ${lookup === 'name' ? 'name' : '_uuid'}${measure === 'cpu' ? ' (server CPU)' : ''}`,
        unit: 'µs/txn',
        chart: measure === 'cpu' ? 'commit-cpu' : 'commit',
        subjects: SERVERS,
        compare: PAIR,
        sample: (s, _subject, ctx) => commitSample(s, ctx, lookup, measure),
      }),
    ),
  ),
  {
    id: 'scan-cpu',
    title: 'select where tag > 4000, no index applies (server CPU)',
    unit: 'ns/row',
    chart: 'scan',
    subjects: SERVERS,
    compare: PAIR,
    sample: (s) => scanSample(s),
  },
  {
    id: 'rss',
    title: 'server RSS',
    unit: 'MB',
    chart: 'rss',
    subjects: SERVERS,
    compare: PAIR,
    sample: async (s) => rssMb(s.server.pid),
  },
];
