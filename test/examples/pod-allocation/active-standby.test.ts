/**
 * Two replicas of the example controller (`main.ts`, separate processes)
 * over one NB, on ovsdb-server and on ovnkit-server: 20 nodes with warm
 * pools and 200 pods, read by both from the same files. The active one is
 * killed with SIGKILL in the middle of its work; the standby takes over,
 * and the killed one is started again (it becomes the standby). Afterwards
 * NB holds no IP, MAC or port of two pods, no pod is failed, every pool is
 * within its bounds with no leaked entry, and a counting proxy in front of
 * each replica shows that no write transaction was sent by a connection
 * that did not hold the lock. The takeover time (SIGKILL to the lock's
 * grant, and to the new active's first write) is attached to the test.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOPOLOGY } from '../../../examples/pod-allocation/cluster.js';
import {
  ActiveStandby,
  type FailureEvent,
  PodController,
  ProgrammaticPodSource,
} from '../../../examples/pod-allocation/controller/index.js';
import { type ControllerStatus, DEFAULT_LOCK } from '../../../examples/pod-allocation/main.js';
import {
  POOL_INDEXES,
  PoolReconciler,
  ProgrammaticNodeSource,
} from '../../../examples/pod-allocation/pools/index.js';
import { connectDatabase } from '../../../src/client/index.js';
import { createNb, NB } from '../../../src/nb/index.js';
import { until } from '../../client/helpers/fixtures.js';
import { OvsdbProxy } from '../../client/helpers/proxy.js';
import { SERVER_KINDS, startTestServer, type TestServerHandle } from '../../helpers/servers.js';
import { ROOT } from '../ovn-rig.js';
import { CountingProxy } from './counting-proxy.js';
import { dumpText, NB_SCHEMA, snapshot } from './helpers.js';
import { expectWellFormed, readPools } from './pools-rig.js';

const NODES = 20;
const PODS = 200;
const DELETED = 20;
const MIN_IDLE = 2;
const MAX_IDLE = 4;

interface Proc {
  readonly child: ChildProcess;
  /** The `role` log lines so far, with their time. */
  readonly roles: { role: string; at: number }[];
  readonly exited: Promise<void>;
}

/** Write `value` as JSON to `path` whole (the sources poll the file). */
function writeJson(path: string, value: unknown): void {
  writeFileSync(`${path}.tmp`, JSON.stringify(value));
  renameSync(`${path}.tmp`, path);
}

function pods(from: number, to: number) {
  return Array.from({ length: to - from }, (_, i) => {
    const n = from + i;
    return { namespace: `ns-${n % 5}`, name: `pod-${n}`, node: `node-${n % NODES}` };
  });
}

describe.each(SERVER_KINDS)('two replicas of the pod controller on %s', (kind) => {
  let server: TestServerHandle;
  let dir: string;
  const procs: Proc[] = [];
  const proxies: CountingProxy[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { schemaPath: NB_SCHEMA, remotes: ['unix'] });
    dir = mkdtempSync(join(tmpdir(), 'ovnkit-replicas-'));
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    }
    for (const p of proxies.splice(0)) await p.close();
  });
  afterAll(async () => {
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  function start(name: string, remote: string): Proc {
    const child = spawn(
      process.execPath,
      [
        '--conditions=ovnkit-source',
        '--import',
        'tsx',
        join(ROOT, 'examples', 'pod-allocation', 'main.ts'),
        '--nb',
        remote,
        '--pods',
        join(dir, 'pods.json'),
        '--nodes',
        join(dir, 'nodes.json'),
        '--status',
        join(dir, `status-${name}.json`),
        '--poll-ms',
        '50',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const roles: Proc['roles'] = [];
    // The JSON log lines on stderr; a `role` line at each change of role.
    let buffered = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stderr = (stderr + text).slice(-4000);
      buffered += text;
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        try {
          const r = JSON.parse(line) as { msg?: string; role?: string };
          if (r.msg === 'role' && r.role !== undefined)
            roles.push({ role: r.role, at: Date.now() });
        } catch {
          // not a log line
        }
      }
    });
    child.stdout!.resume();
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        if (code !== 0 && code !== null && signal === null) {
          process.stderr.write(`replica ${name} exited ${code}: ${stderr}\n`);
        }
        resolve();
      });
    });
    const proc = { child, roles, exited };
    procs.push(proc);
    return proc;
  }

  function status(name: string): ControllerStatus | undefined {
    try {
      return JSON.parse(readFileSync(join(dir, `status-${name}.json`), 'utf8')) as ControllerStatus;
    } catch {
      return undefined;
    }
  }

  const role = (p: Proc) => p.roles.at(-1)?.role;

  it('kill -9 of the active one: the standby takes over, nothing is held twice, the standby never wrote', async ({
    annotate,
  }) => {
    const nodes = Array.from({ length: NODES }, (_, i) => ({
      name: `node-${i}`,
      subnet: 'ovn-default',
      minIdle: MIN_IDLE,
      maxIdle: MAX_IDLE,
      batchSize: 2,
      idleTtlMs: 300,
    }));
    writeJson(join(dir, 'nodes.json'), nodes);
    writeJson(join(dir, 'pods.json'), pods(0, PODS / 2));
    const proxyA = await CountingProxy.start(server.remotes.unix!, DEFAULT_LOCK);
    const proxyB = await CountingProxy.start(server.remotes.unix!, DEFAULT_LOCK);
    proxies.push(proxyA, proxyB);

    const a = start('a', proxyA.remote);
    await until(() => role(a) === 'active', 60_000, 'a to be active');
    const b = start('b', proxyB.remote);
    await until(() => role(b) === 'standby', 60_000, 'b to be standby');
    // Mid-run: a has the second half of the pods to do when it dies.
    writeJson(join(dir, 'pods.json'), pods(0, PODS));
    const writesBefore = proxyA.totals.writes;
    await until(
      () => proxyA.totals.writes >= writesBefore + 20,
      60_000,
      'a to work on the new pods',
    );
    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    await a.exited;

    await until(() => role(b) === 'active', 60_000, 'b to take over');
    const grant = proxyB.connections.at(-1)!.grants.at(-1)!;
    await until(
      () => proxyB.connections.at(-1)!.firstWriteAfterGrant !== undefined,
      60_000,
      'b to write',
    );
    const firstWrite = proxyB.connections.at(-1)!.firstWriteAfterGrant!;

    // a comes back, as the standby.
    const a2 = start('a2', proxyA.remote);
    await until(() => role(a2) === 'standby', 60_000, 'a to come back as standby');
    // Pods deleted under the new active.
    const live = pods(DELETED, PODS);
    writeJson(join(dir, 'pods.json'), live);

    const done = () => {
      const s = status('b');
      if (s === undefined || s.queued > 0) return false;
      const states = Object.entries(s.pods);
      return (
        live.every((p) => s.pods[`${p.namespace}/${p.name}`]?.state === 'ready') &&
        pods(0, DELETED).every((p) => s.pods[`${p.namespace}/${p.name}`]?.state === 'deleted') &&
        states.every(([, v]) => v.state === 'ready' || v.state === 'deleted') &&
        s.pools.length === NODES &&
        s.pools.every((p) => p.idle >= MIN_IDLE && p.idle <= MAX_IDLE && p.failure === undefined)
      );
    };
    await until(done, 90_000, 'b to finish');
    const settled = Date.now();
    expect(role(b)).toBe('active');
    expect(role(a2)).toBe('standby');

    // NB, read with a fresh client.
    const view = await readPools(server.remotes.unix!);
    expectWellFormed(view, () => 'ovn-default');
    const livePods = new Set(live.map((p) => `${p.namespace}/${p.name}`));
    expect(new Set(view.pods.keys())).toEqual(livePods);
    // Every ovnkit port is a live pod's or an idle entry of a node; no port of two pods.
    const portsByPod = new Map<string, number>();
    for (const p of view.all) {
      const pod = p.externalIds['pod'];
      if (pod !== undefined) portsByPod.set(pod, (portsByPod.get(pod) ?? 0) + 1);
      else expect(p.externalIds['pool'], p.name).toMatch(/^node-\d+$/);
    }
    expect([...portsByPod.values()].every((n) => n === 1)).toBe(true);
    for (let i = 0; i < NODES; i++) {
      const idle = view.entries.get(`node-${i}`)?.length ?? 0;
      expect(idle, `node-${i}`).toBeGreaterThanOrEqual(MIN_IDLE);
      expect(idle, `node-${i}`).toBeLessThanOrEqual(MAX_IDLE);
    }

    // The standbys sent no write: b before its grant, a2 never.
    expect(proxyB.totals.standbyWrites).toBe(0);
    expect(proxyA.totals.standbyWrites).toBe(0);
    const a2Writes = proxyA.connections.slice(1).reduce((n, c) => n + c.writes, 0);
    expect(a2Writes).toBe(0);
    expect(proxyB.totals.writes).toBeGreaterThan(0);

    await annotate(
      `${kind}: takeover ${grant - killedAt} ms from SIGKILL to the lock's grant, ` +
        `${firstWrite - killedAt} ms to the first write; settled ${settled - killedAt} ms after the kill; ` +
        `writes: a ${proxyA.connections[0]!.writes}, b ${proxyB.totals.writes}`,
    );
  }, 180_000);
});

describe.each(SERVER_KINDS)('a replica that loses the lock, on %s', (kind) => {
  let server: TestServerHandle;
  beforeAll(async () => {
    server = await startTestServer(kind, { schemaPath: NB_SCHEMA, remotes: ['unix'] });
  });
  afterAll(() => server?.stop());

  it('stops writing at once (in-flight transactions fenced), and starts afresh when the lock comes back', async () => {
    const remote = server.remotes.unix!;
    const lock = 'lose_and_regain';
    // A proxy that can hold the replica's requests, to have transactions in flight when the lock goes.
    const proxy = await OvsdbProxy.start(remote);
    const client = connectDatabase({
      remotes: proxy.remote,
      model: NB,
      indexes: POOL_INDEXES,
      fence: lock,
    });
    const source = new ProgrammaticPodSource();
    const nodes = new ProgrammaticNodeSource(
      Array.from({ length: 4 }, (_, i) => ({
        name: `node-${i}`,
        subnet: 'ovn-default',
        minIdle: 2,
        maxIdle: 4,
      })),
    );
    const failures: FailureEvent[] = [];
    let current: PodController | undefined;
    let activations = 0;
    const replica = new ActiveStandby({
      client,
      lock,
      activate: async () => {
        activations++;
        const nb = createNb(client);
        const pools = new PoolReconciler({ nb, nodes, resyncIntervalMs: 0 });
        const controller = new PodController({
          nb,
          source,
          topology: DEMO_TOPOLOGY,
          pools,
          gcIntervalMs: 0,
          onEvent: (e) => failures.push(e),
        });
        current = controller;
        await controller.start();
        await pools.start();
        return {
          stop: async () => {
            await pools.stop();
            await controller.stop();
          },
        };
      },
    });
    const thief = connectDatabase({ remotes: remote, model: NB });
    try {
      replica.start();
      await until(() => replica.role === 'active' && current !== undefined, 60_000, 'active');
      for (let i = 0; i < 100; i++)
        source.add({ namespace: 'ns', name: `p-${i}`, node: `node-${i % 4}` });
      await until(() => (current?.stats.reconciled ?? 0) >= 10, 60_000, 'work under way');
      const first = current!;
      // The replica's next transactions are sent, and held on the way.
      proxy.holdRequests();
      await new Promise((r) => setTimeout(r, 200));
      const stolen = thief.lock(lock, { steal: true });
      await stolen.whenHeld();
      const atSteal = dumpText(await snapshot(remote));
      proxy.thaw(); // they reach the server after the steal
      await until(() => replica.role === 'standby', 60_000, 'standby');
      await first.idle();
      // Nothing of the replica committed after the lock was taken from it: the
      // transactions in flight were refused by the server.
      expect(dumpText(await snapshot(remote))).toBe(atSteal);
      expect(first.stats.reconciled).toBeLessThan(100);
      expect(failures.length).toBeGreaterThan(0);
      for (const f of failures) expect(f.message).toMatch(/fenced by lock "lose_and_regain"/);
      expect(failures.some((f) => f.message.includes('refused by the server'))).toBe(true);

      // The lock comes back (a robbed waiter stays in line): new controllers finish the work.
      await stolen.release();
      await until(() => replica.role === 'active' && current !== first, 60_000, 'active again');
      await until(
        () =>
          current!.knownPods().length === 100 &&
          [...current!.status.values()].filter((s) => s.state === 'ready').length === 100,
        60_000,
        'all pods',
      );
      expect(activations).toBe(2);
      const view = await readPools(remote);
      expectWellFormed(view, () => 'ovn-default');
      expect(view.pods.size).toBe(100);
    } finally {
      await replica.stop();
      await thief.close();
      await client.close();
      await proxy.close();
    }
  }, 120_000);
});
