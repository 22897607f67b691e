/**
 * Controller plumbing without a server: rate limiters, the work queue
 * (dedupe, per-key serialization, bounded concurrency, rate-limited
 * retries), annotation parsing and failure classification, and the file
 * pod source (JSON and YAML, watched).
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANNOTATIONS,
  BadAnnotationError,
  classifyFailure,
  ExponentialFailureRateLimiter,
  FilePodSource,
  MaxOfRateLimiter,
  type PodEvent,
  parsePodIntent,
  parsePodsFile,
  portName,
  TokenBucketRateLimiter,
  WorkQueue,
} from '../../../examples/pod-allocation/controller/index.js';
import { Ipam } from '../../../examples/pod-allocation/ipam/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rate limiters', () => {
  it('exponential backoff per item, capped, forgotten on success', () => {
    const l = new ExponentialFailureRateLimiter(5, 100);
    expect([l.when('a'), l.when('a'), l.when('a'), l.when('b')]).toEqual([5, 10, 20, 5]);
    for (let i = 0; i < 10; i++) l.when('a');
    expect(l.when('a')).toBe(100);
    expect(l.retries('a')).toBe(14);
    l.forget('a');
    expect(l.when('a')).toBe(5);
  });

  it('token bucket: burst free, then 1/qps per token', () => {
    let now = 0;
    const b = new TokenBucketRateLimiter(10, 2, () => now);
    expect([b.when('x'), b.when('y')]).toEqual([0, 0]);
    expect(b.when('z')).toBeCloseTo(100);
    expect(b.when('z')).toBeCloseTo(200);
    now = 1000;
    expect(b.when('z')).toBe(0);
  });

  it('max of both', () => {
    const now = 0;
    const m = new MaxOfRateLimiter(
      new ExponentialFailureRateLimiter(1, 1000),
      new TokenBucketRateLimiter(10, 1, () => now),
    );
    expect(m.when('a')).toBe(1);
    expect(m.when('a')).toBeCloseTo(100);
    expect(m.retries('a')).toBe(2);
    m.forget('a');
    expect(m.retries('a')).toBe(0);
  });
});

describe('work queue', () => {
  it('dedupes queued keys, serializes a key, bounds concurrency', async () => {
    const active = new Set<string>();
    let maxActive = 0;
    const runs: string[] = [];
    let overlap = false;
    const q = new WorkQueue<string>({
      concurrency: 3,
      rateLimiter: new ExponentialFailureRateLimiter(1, 10),
      worker: async (key) => {
        if (active.has(key)) overlap = true;
        active.add(key);
        maxActive = Math.max(maxActive, active.size);
        runs.push(key);
        await sleep(5);
        active.delete(key);
      },
    });
    for (let i = 0; i < 10; i++) q.add(`k${i}`);
    for (let i = 5; i < 10; i++) q.add(`k${i}`); // still queued: deduped
    await sleep(1);
    q.add('k0'); // being processed: it runs again afterwards
    q.add('k0');
    await q.idle();
    expect(overlap).toBe(false);
    expect(maxActive).toBe(3);
    expect(runs.filter((k) => k === 'k0')).toHaveLength(2);
    expect(runs).toHaveLength(11);
  });

  it('retries through the rate limiter and stops on shutdown', async () => {
    let calls = 0;
    const q: WorkQueue<string> = new WorkQueue<string>({
      rateLimiter: new ExponentialFailureRateLimiter(2, 8),
      worker: async (key) => {
        calls++;
        if (calls < 4) q.addRateLimited(key);
        else q.forget(key);
      },
    });
    q.add('a');
    await q.idle();
    expect(calls).toBe(4);
    expect(q.retries('a')).toBe(0);
    q.addAfter('b', 10_000);
    expect(q.size).toBe(1);
    await q.shutdown();
    expect(q.size).toBe(0);
    q.add('c');
    expect(q.size).toBe(0);
  });

  it('wakes a waiter for idle when shutdown drops the keys that kept it waiting', async () => {
    const q = new WorkQueue<string>({
      rateLimiter: new ExponentialFailureRateLimiter(2, 8),
      worker: async () => {},
    });
    q.addAfter('delayed', 10_000); // a retry waiting for its turn: nothing is processing
    let idle = false;
    const waiting = q.idle().then(() => {
      idle = true;
    });
    await sleep(5);
    expect(idle).toBe(false);
    await q.shutdown();
    await Promise.race([waiting, sleep(1_000)]);
    expect(idle).toBe(true);
  });
});

describe('annotations', () => {
  const pod = (annotations: Record<string, string>, name = 'web-0', ownerKind?: string) => ({
    namespace: 'ns',
    name,
    node: 'n1',
    annotations,
    ...(ownerKind !== undefined ? { ownerKind } : {}),
  });

  it('reads the inputs', () => {
    const i = parsePodIntent(
      pod(
        {
          [ANNOTATIONS.logicalSwitch]: 'sw',
          [ANNOTATIONS.ipAddress]: '10.0.0.5,fd00::5',
          [ANNOTATIONS.eip]: '172.16.0.5',
          [ANNOTATIONS.vips]: '10.0.0.100',
          [ANNOTATIONS.ipPool]: '10.0.0.10,10.0.0.11',
        },
        'db-1',
        'StatefulSet',
      ),
      'default',
    );
    expect(i.subnet).toBe('sw');
    expect(i.request).toEqual({
      ips: ['10.0.0.5', 'fd00::5'],
      pool: ['10.0.0.10', '10.0.0.11'],
      ordinal: 1,
    });
    expect(i.eip).toBe('172.16.0.5');
    expect(i.portSecurity).toBe(true);
    expect(i.vips).toEqual(['10.0.0.100']);
    expect(
      parsePodIntent(pod({ [ANNOTATIONS.ipPool]: '10.0.0.10' }, 'db-1'), 'd').request.ordinal,
    ).toBeUndefined();
    expect(portName('ns/web-0')).toBe('web-0.ns');
  });

  it('refuses bad values with the annotation and the reason', () => {
    expect(() => parsePodIntent(pod({ [ANNOTATIONS.ipAddress]: '10.0.0.999' }), 'd')).toThrow(
      BadAnnotationError,
    );
    expect(() => parsePodIntent(pod({ [ANNOTATIONS.eip]: 'fd00::1' }), 'd')).toThrow(
      /ovn.kubernetes.io\/eip="fd00::1" must be an IPv4/,
    );
    expect(() => parsePodIntent(pod({ [ANNOTATIONS.portSecurity]: 'yes' }), 'd')).toThrow(
      /port_security/,
    );
    expect(() =>
      parsePodIntent(pod({ [ANNOTATIONS.ipAddress]: '10.0.0.1,10.0.0.2,10.0.0.3' }), 'd'),
    ).toThrow(/one IP/);
  });

  it('classifies failures', () => {
    const ipam = new Ipam([{ name: 's', cidr: '10.0.0.0/30' }]);
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      throw new Error('no error');
    };
    expect(
      classifyFailure(err(() => parsePodIntent(pod({ [ANNOTATIONS.ipAddress]: 'x' }), 'd'))),
    ).toMatchObject({ reason: 'BadAnnotation', retryable: false });
    expect(classifyFailure(err(() => ipam.lease('a', 's', { ips: ['10.1.0.1'] })))).toMatchObject({
      reason: 'OutsideCidr',
      retryable: false,
    });
    ipam.lease('a', 's').commit();
    expect(classifyFailure(err(() => ipam.lease('b', 's', { ips: ['10.0.0.2'] })))).toMatchObject({
      reason: 'IpConflict',
      retryable: true,
    });
    expect(classifyFailure(err(() => ipam.lease('b', 's')))).toMatchObject({
      reason: 'SubnetExhausted',
      retryable: true,
    });
    expect(classifyFailure(new Error('socket closed'))).toMatchObject({
      reason: 'NbError',
      retryable: true,
    });
  });
});

describe('file pod source', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ovnkit-pods-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('parses JSON and YAML, and names the problem in a bad file', () => {
    expect(parsePodsFile('p.json', '[{"namespace":"a","name":"b","node":"n"}]')).toEqual([
      { namespace: 'a', name: 'b', node: 'n' },
    ]);
    expect(
      parsePodsFile(
        'p.yaml',
        'pods:\n  - namespace: a\n    name: b\n    node: n\n    annotations:\n      ovn.kubernetes.io/eip: 1.2.3.4\n',
      ),
    ).toEqual([
      { namespace: 'a', name: 'b', node: 'n', annotations: { 'ovn.kubernetes.io/eip': '1.2.3.4' } },
    ]);
    expect(() => parsePodsFile('p.json', '{')).toThrow(/p.json: not valid JSON/);
    expect(() => parsePodsFile('p.json', '[{"namespace":"a","name":"b"}]')).toThrow(
      /p.json: 0.node/,
    );
  });

  it('watches the file and emits add, update and delete', async () => {
    const path = join(dir, 'pods.yaml');
    await writeFile(
      path,
      'pods:\n  - {namespace: a, name: p1, node: n1}\n  - {namespace: a, name: p2, node: n1}\n',
    );
    const errors: Error[] = [];
    const source = new FilePodSource(path, {
      intervalMs: 20,
      confirmMs: 20,
      onError: (e) => errors.push(e),
    });
    await source.whenSynced();
    expect((await source.list()).map((p) => p.name)).toEqual(['p1', 'p2']);
    const events: PodEvent[] = [];
    source.subscribe((e) => events.push(e));
    await sleep(50);
    await writeFile(
      path,
      'pods:\n  - {namespace: a, name: p1, node: n2}\n  - {namespace: a, name: p3, node: n1}\n',
    );
    for (let i = 0; i < 100 && events.length < 3; i++) await sleep(20);
    expect(events.map((e) => `${e.type} ${e.pod.name}`).sort()).toEqual([
      'add p3',
      'delete p2',
      'update p1',
    ]);
    await writeFile(path, 'pods: [');
    // (A poll may also catch the file truncated mid-write: that is an error too.)
    const yamlError = () => errors.find((e) => /pods.yaml: not valid YAML/.test(e.message));
    for (let i = 0; i < 100 && yamlError() === undefined; i++) await sleep(20);
    expect(yamlError()).toBeDefined();
    expect((await source.list()).map((p) => p.name)).toEqual(['p1', 'p3']);
    source.close();
  });
});
