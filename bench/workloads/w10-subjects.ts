/**
 * W10's data and subjects: a desired state of `switches × perSwitch` ports
 * owned by one owner, whose addresses carry a version per port; a change
 * bumps the version of 1 % of the ports. Each subject makes the database
 * match the new versions its own way and returns its times:
 * `applyDesired` (and `planDesired` alone before it), a
 * `desiredReconciler` over one long-lived desired state, the raw client
 * sending only the changed updates (reply only, or reply and the update
 * notification of a monitoring raw client), and a naive reconcile that
 * writes every row (ovnkit's typed builder over the replica, and the raw
 * client after a `select` of every port).
 * @module
 */

import { performance } from 'node:perf_hooks';
import type { DatabaseClient } from '../../src/client/client.js';
import {
  applyDesired,
  type DesiredState,
  desiredReconciler,
  type KeyRef,
  planDesired,
} from '../../src/desired/index.js';
import { NB, type NBTables } from '../../src/nb/generated/model.js';
import { nbDesiredState } from '../../src/nb/index.js';
import type {} from '../../src/transactions/index.js';
import { DB, transactText } from '../lib/nb-data.js';
import type { RawClient } from '../lib/raw-client.js';
import { cpuClock } from '../lib/variants.js';

/** The owner of W10's rows. */
export const W10_OWNER = 'w10-ctl';

const hex = (n: number): string => (n & 255).toString(16).padStart(2, '0');

/** W10's ports and their current address versions. */
export class W10Topology {
  /** The address version of each port. */
  readonly version: Int32Array;
  /** The number of changes made so far (picks the next ports to change). */
  private round = 0;

  constructor(
    readonly switches: number,
    readonly perSwitch: number,
    /** Ports changed per change (1 %). */
    readonly changed: number,
  ) {
    this.version = new Int32Array(switches * perSwitch);
  }

  /** The number of ports. */
  get ports(): number {
    return this.version.length;
  }

  /** Port `i`'s name. */
  name(i: number): string {
    return `w10-s${Math.floor(i / this.perSwitch)}-p${i % this.perSwitch}`;
  }

  /** Port `i`'s address at its current version. */
  address(i: number): string {
    const v = this.version[i]!;
    return `0a:${hex(v)}:00:${hex(i >> 16)}:${hex(i >> 8)}:${hex(i)} 10.${(v % 200) + 1}.${(i >> 8) & 255}.${i & 255}`;
  }

  /** Bump the versions of the next `changed` ports (spread over every switch); returns them. */
  change(): number[] {
    const n = this.ports;
    const stride = Math.floor(n / this.changed);
    const r = this.round++;
    const out: number[] = [];
    for (let k = 0; k < this.changed; k++) {
      const i = (k * stride + (r % stride)) % n;
      this.version[i]! += 1;
      out.push(i);
    }
    return out;
  }

  /** The whole desired state at the current versions. */
  desired(): DesiredState<NBTables> {
    const d = nbDesiredState(NB, { owner: W10_OWNER });
    for (let s = 0; s < this.switches; s++) {
      const sw: KeyRef = d.add('Logical_Switch', { name: `w10-sw${s}` });
      for (let p = 0; p < this.perSwitch; p++) {
        const i = s * this.perSwitch + p;
        d.add(
          'Logical_Switch_Port',
          { name: this.name(i), addresses: [this.address(i)] },
          { in: sw },
        );
      }
    }
    return d;
  }
}

/**
 * One long-lived desired state of W10's ports, kept up to date with `set`
 * (as a controller keeps its state), for the reconciler subject.
 */
export class W10LiveState {
  readonly state: DesiredState<NBTables>;
  private readonly switches: KeyRef[] = [];
  /** The address version each port is declared at. */
  private readonly declared: Int32Array;

  constructor(private readonly topo: W10Topology) {
    this.state = nbDesiredState(NB, { owner: W10_OWNER });
    for (let s = 0; s < topo.switches; s++) {
      this.switches.push(this.state.set('Logical_Switch', { name: `w10-sw${s}` }));
    }
    this.declared = new Int32Array(topo.ports).fill(-1);
    this.update();
  }

  /** Declare again every port whose version changed since; returns how many. */
  update(): number {
    let n = 0;
    for (let i = 0; i < this.topo.ports; i++) {
      if (this.declared[i] === this.topo.version[i]) continue;
      this.declared[i] = this.topo.version[i]!;
      this.state.set(
        'Logical_Switch_Port',
        { name: this.topo.name(i), addresses: [this.topo.address(i)] },
        { in: this.switches[Math.floor(i / this.topo.perSwitch)]! },
      );
      n++;
    }
    return n;
  }
}

/** The times (ms) of one reconciler sample. */
export interface ReconcilerSample {
  /** `plan()` alone, ms. */
  readonly planMs: number;
  /** `apply()` until it resolved (its own plan included), ms. */
  readonly applyMs: number;
  /** Client CPU (user + system) during `apply()`, ms. */
  readonly applyCpuMs: number;
  /** Rows its plan looked at (the changed declarations and the rows its last commit changed). */
  readonly rowsPlanned: number;
}

/** The median of `xs` (not empty). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * On a fresh connection: a reconciler of `live` (untimed: its first, full
 * plan, which must be empty, and one change applied, so that the rows of
 * its last commit are planned again as in a running controller); then
 * `changes` times: change 1 %, `set` those ports, and time `plan()` and
 * `apply()` (the sample holds the medians). Every plan must be incremental
 * and every apply must send exactly the changed updates.
 */
export async function reconcilerSample(
  client: DatabaseClient<NBTables>,
  topo: W10Topology,
  live: W10LiveState,
  changes = 1,
): Promise<ReconcilerSample> {
  live.update();
  const r = desiredReconciler(client, live.state);
  try {
    const first = await r.apply();
    if (first.outcome !== 'unchanged') throw new Error('W10: the reconciler base was not empty');
    topo.change();
    live.update();
    const warm = await r.apply();
    if (warm.operations !== topo.changed) throw new Error('W10: the warm reconcile failed');
    const plans: number[] = [];
    const applies: number[] = [];
    const cpus: number[] = [];
    const rows0 = r.stats.rowsPlanned;
    for (let k = 0; k < changes; k++) {
      await client.drained();
      topo.change();
      live.update();
      const t0 = performance.now();
      const plan = await r.plan();
      plans.push(performance.now() - t0);
      if (plan.operations !== topo.changed) {
        throw new Error(`W10: the reconciler planned ${plan.operations} operations`);
      }
      const cpu = cpuClock();
      const t1 = performance.now();
      const res = await r.apply();
      applies.push(performance.now() - t1);
      cpus.push(cpu() / 1000);
      if (res.operations !== topo.changed || res.attempts !== 1) {
        throw new Error(`W10: the reconciler sent ${res.operations} operations`);
      }
    }
    if (r.stats.fullPlans !== 1 || r.stats.incrementalPlans !== 1 + 2 * changes) {
      throw new Error(`W10: the reconciler made ${JSON.stringify(r.stats)}`);
    }
    return {
      planMs: median(plans),
      applyMs: median(applies),
      applyCpuMs: median(cpus),
      rowsPlanned: (r.stats.rowsPlanned - rows0) / (2 * changes),
    };
  } finally {
    r.close();
  }
}

/** The times (ms) of one `applyDesired` sample and what its plan held. */
export interface DesiredSample {
  /** Declaring the desired state (the `add` calls), ms. */
  readonly declareMs: number;
  /** `planDesired` alone, ms. */
  readonly planMs: number;
  /** `applyDesired` until it resolved (its own plan included), ms. */
  readonly applyMs: number;
  /** Client CPU (user + system) during `applyDesired`, ms. */
  readonly applyCpuMs: number;
  /** Write operations and guards the plan held. */
  readonly operations: number;
  readonly guards: number;
}

/** Change 1 %, declare, plan, then apply; checks the plan and the result. */
export async function desiredSample(
  client: DatabaseClient<NBTables>,
  topo: W10Topology,
): Promise<DesiredSample> {
  topo.change();
  const t0 = performance.now();
  const d = topo.desired();
  const t1 = performance.now();
  const plan = planDesired(client, d);
  const planMs = performance.now() - t1;
  if (plan.operations !== topo.changed || plan.counts.updates !== topo.changed) {
    throw new Error(
      `W10: the plan holds ${plan.operations} operations and ${plan.counts.updates} updates, not ${topo.changed}`,
    );
  }
  const cpu = cpuClock();
  const t2 = performance.now();
  const r = await applyDesired(client, d);
  const applyMs = performance.now() - t2;
  const applyCpuMs = cpu() / 1000;
  if (r.operations !== topo.changed || r.attempts !== 1) {
    throw new Error(`W10: apply sent ${r.operations} operations in ${r.attempts} attempts`);
  }
  return {
    declareMs: t1 - t0,
    planMs,
    applyMs,
    applyCpuMs,
    operations: plan.operations,
    guards: plan.guards,
  };
}

/** The wire `update` of port `uuid`'s addresses. */
function updateOp(uuid: string, address: string): Record<string, unknown> {
  return {
    op: 'update',
    table: 'Logical_Switch_Port',
    where: [['_uuid', '==', ['uuid', uuid]]],
    row: { addresses: address },
  };
}

/**
 * Change 1 % and send only the changed updates, pre-serialized, as one
 * transaction on the raw client `c`; time until its reply, or with
 * `monitored` (`c` monitors the ports) until its reply and the update
 * notification (which ovsdb-server sends before the reply).
 */
export async function rawChangedSample(
  c: RawClient,
  topo: W10Topology,
  monitored: boolean,
): Promise<number> {
  const ports = await portRows(c);
  const changed = topo.change();
  const text = transactText(
    changed.map((i) => updateOp(ports.get(topo.name(i))!.uuid, topo.address(i))),
    `w10-${Math.random().toString(36).slice(2)}`,
  );
  await c.request('echo', []); // every earlier notification is in
  const base = c.count;
  const t0 = performance.now();
  c.write(text);
  await c.until(base + (monitored ? 2 : 1));
  return performance.now() - t0;
}

/** A port as the raw subjects read it: UUID, addresses and external_ids (wire form). */
interface WirePort {
  readonly uuid: string;
  readonly addresses: unknown;
  readonly externalIds: unknown;
}

/** Every port by name, with the columns the reconciler's guards compare (a raw `select`, untimed). */
async function portRows(c: RawClient): Promise<Map<string, WirePort>> {
  const [sel] = (await c.request('transact', [
    DB,
    {
      op: 'select',
      table: 'Logical_Switch_Port',
      where: [],
      columns: ['_uuid', 'name', 'addresses', 'external_ids'],
    },
  ])) as [
    {
      rows: {
        _uuid: [string, string];
        name: string;
        addresses: unknown;
        external_ids: unknown;
      }[];
    },
  ];
  return new Map(
    sel.rows.map((r) => [
      r.name,
      { uuid: r._uuid[1], addresses: r.addresses, externalIds: r.external_ids },
    ]),
  );
}

/**
 * Change 1 % and send, pre-serialized on the raw client, the operations a
 * guarded apply of that change holds: per changed port a `wait` (timeout 0)
 * that its `external_ids` and `addresses` are still what was read, and a
 * `mutate` of its addresses (delete the old, insert the new); time until
 * the reply. What the server alone spends on the guards (no plan, no typed
 * builder, no replica).
 */
export async function rawGuardedSample(c: RawClient, topo: W10Topology): Promise<number> {
  const rows = await portRows(c);
  const changed = topo.change();
  const waits: Record<string, unknown>[] = [];
  const mutates: Record<string, unknown>[] = [];
  for (const i of changed) {
    const r = rows.get(topo.name(i))!;
    const where = [['_uuid', '==', ['uuid', r.uuid]]];
    waits.push({
      op: 'wait',
      table: 'Logical_Switch_Port',
      where,
      columns: ['external_ids', 'addresses'],
      until: '==',
      rows: [{ external_ids: r.externalIds, addresses: r.addresses }],
      timeout: 0,
    });
    mutates.push({
      op: 'mutate',
      table: 'Logical_Switch_Port',
      where,
      mutations: [
        ['addresses', 'delete', r.addresses],
        ['addresses', 'insert', topo.address(i)],
      ],
    });
  }
  const id = `w10-${Math.random().toString(36).slice(2)}`;
  const text = transactText([...waits, ...mutates], id);
  await c.request('echo', []); // every earlier notification is in
  const base = c.count;
  const t0 = performance.now();
  c.write(text);
  await c.until(base + 1);
  const ms = performance.now() - t0;
  // Every guard held: the change committed (checked after the clock stopped).
  const after = await portRows(c);
  for (const i of changed) {
    const a = after.get(topo.name(i))!.addresses;
    if (a !== topo.address(i)) throw new Error(`W10: the guarded raw change left ${String(a)}`);
  }
  return ms;
}

/** Change 1 %, then write every port through ovnkit's typed builder (uuids from the replica). */
export async function naiveOvnkitSample(
  client: DatabaseClient<NBTables>,
  db: DatabaseClient<NBTables>,
  topo: W10Topology,
): Promise<number> {
  topo.change();
  const rows: { name: string; address: string }[] = [];
  for (let i = 0; i < topo.ports; i++) rows.push({ name: topo.name(i), address: topo.address(i) });
  const t0 = performance.now();
  await db.transact((tx) => {
    for (const r of rows) {
      const row = client.lookup('Logical_Switch_Port', { name: r.name });
      if (row === undefined) throw new Error(`W10: ${r.name} is not in the replica`);
      tx.update('Logical_Switch_Port', row._uuid, { addresses: [r.address] });
    }
  });
  return performance.now() - t0;
}

/** Change 1 %, then `select` every port on the raw client and send an update of each. */
export async function naiveRawSample(c: RawClient, topo: W10Topology): Promise<number> {
  topo.change();
  const want = new Map<string, string>();
  for (let i = 0; i < topo.ports; i++) want.set(topo.name(i), topo.address(i));
  const t0 = performance.now();
  const [sel] = (await c.request('transact', [
    DB,
    { op: 'select', table: 'Logical_Switch_Port', where: [], columns: ['_uuid', 'name'] },
  ])) as [{ rows: { _uuid: [string, string]; name: string }[] }];
  const ops: Record<string, unknown>[] = [];
  for (const row of sel.rows) {
    const a = want.get(row.name);
    if (a !== undefined) ops.push(updateOp(row._uuid[1], a));
  }
  if (ops.length !== topo.ports)
    throw new Error(`W10: select found ${ops.length} of ${topo.ports} ports`);
  const reply = (await c.request('transact', [DB, ...ops])) as { error?: unknown }[];
  const ms = performance.now() - t0;
  if (reply.some((r) => r?.error !== undefined)) throw new Error(`W10: naive raw write failed`);
  return ms;
}
