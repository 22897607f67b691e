/**
 * The controllers' metrics: a controller and its pools with
 * `controllerMetrics(promClient, { registry })` served by `serveMetrics` on
 * 127.0.0.1:0 (both servers), and `npm run demo -- --metrics 127.0.0.1:0`;
 * `/metrics` is scraped over HTTP, parsed by the rules of the Prometheus
 * text format, and checked against the controllers' own counts.
 */

import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ClusterTopology } from '../../../examples/pod-allocation/controller/index.js';
import { controllerMetrics, serveMetrics } from '../../../examples/pod-allocation/pools/index.js';
import { requirePackage } from '../../client/metrics-require.js';
import { type Family, parseExposition } from '../../client/metrics-text.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { NB_SCHEMA } from './helpers.js';
import { makeNodes, poolRig } from './pools-rig.js';

// Loaded as a Node program loads it (see metrics-require.ts).
const promClient = requirePackage('prom-client') as typeof import('prom-client');

function value(families: Map<string, Family>, name: string, labels: Record<string, string>) {
  const family = families.get(name.replace(/_(bucket|sum|count)$/, '')) ?? families.get(name);
  const s = family?.samples.find(
    (x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v),
  );
  return s?.value;
}

async function scrape(url: string): Promise<Map<string, Family>> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

const TOPOLOGY: ClusterTopology = {
  router: 'lr-metrics',
  subnets: [{ name: 'm', cidr: '10.70.0.0/24' }],
};

describe.each(SERVER_KINDS)('controller metrics against %s', (kind) => {
  it('/metrics has the pool gauges, reconcile counters, failures, queue depth and IPAM usage', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const registry = new promClient.Registry();
    const metrics = controllerMetrics(promClient, { registry });
    const r = await poolRig(server.unixRemote, TOPOLOGY, {
      controller: { metrics },
      pools: { metrics },
    });
    const http = await serveMetrics(registry, '127.0.0.1:0');
    try {
      for (const n of makeNodes(3, (i) => ({ subnet: 'm', minIdle: 2 + i, maxIdle: 8 })))
        r.nodes.add(n);
      r.nodes.add({ name: 'bad', subnet: 'm', minIdle: 3, maxIdle: 1 });
      await r.start();
      for (let i = 0; i < 10; i++)
        r.pods.add({ namespace: 'ns', name: `p${i}`, node: `node-${i % 3}` });
      r.pods.add({
        namespace: 'ns',
        name: 'broken',
        node: 'node-0',
        annotations: { 'ovn.kubernetes.io/ip_address': 'x' },
      });
      await r.settle();
      expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const f = await scrape(http.url);
      expect(f.get('ovnkit_pool_total')?.type).toBe('gauge');
      for (const n of ['node-0', 'node-1', 'node-2']) {
        const s = r.pools.status.get(n)!;
        expect(value(f, 'ovnkit_pool_total', { node: n, state: 'idle' }), n).toBe(s.idle);
        expect(value(f, 'ovnkit_pool_total', { node: n, state: 'in_use' }), n).toBe(s.inUse);
      }
      expect(value(f, 'ovnkit_pool_total', { node: 'node-1', state: 'idle' })).toBe(3);
      const inUse = ['node-0', 'node-1', 'node-2'].reduce(
        (a, n) => a + value(f, 'ovnkit_pool_total', { node: n, state: 'in_use' })!,
        0,
      );
      expect(inUse).toBe(r.controller.stats.poolStarts);
      expect(inUse).toBeGreaterThan(0);
      expect(f.get('ovnkit_controller_reconciles_total')?.type).toBe('counter');
      expect(
        value(f, 'ovnkit_controller_reconciles_total', { kind: 'pod', result: 'success' }),
      ).toBe(10);
      expect(
        value(f, 'ovnkit_controller_reconciles_total', { kind: 'pod', result: 'failure' }),
      ).toBe(1);
      expect(
        value(f, 'ovnkit_controller_reconciles_total', { kind: 'pool', result: 'success' }),
      ).toBe(r.pools.stats.reconciles);
      expect(
        value(f, 'ovnkit_controller_failures_total', { kind: 'pool', reason: 'BadBounds' }),
      ).toBe(1);
      expect(
        value(f, 'ovnkit_controller_failures_total', { kind: 'pod', reason: 'BadAnnotation' }),
      ).toBe(1);
      expect(value(f, 'ovnkit_controller_reconcile_duration_seconds_count', { kind: 'pod' })).toBe(
        11,
      );
      expect(value(f, 'ovnkit_controller_queue_depth', { kind: 'pod' })).toBe(0);
      expect(value(f, 'ovnkit_controller_queue_depth', { kind: 'pool' })).toBe(0);
      const used = r.controller.ipam.subnet('m').ranges[0]!.usedCount;
      expect(used).toBe(10 + 2 + 3 + 4);
      expect(value(f, 'ovnkit_ipam_used_addresses', { subnet: 'm', family: 'ipv4' })).toBe(used);
      expect(value(f, 'ovnkit_ipam_capacity_addresses', { subnet: 'm', family: 'ipv4' })).toBe(253);
    } finally {
      await http.close();
      await r.close();
      await server.stop();
    }
  });
});

describe('the demo with --metrics', () => {
  it('serves /metrics over HTTP with the demo pools and reconciles', async () => {
    const env = { ...process.env };
    delete env['OVN_NB_DB'];
    // The demo script of package.json, run directly so that SIGTERM reaches the demo itself.
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };
    const [cmd, ...args] = pkg.scripts['demo']!.split(' ');
    expect(cmd).toBe('node');
    const child = spawn(process.execPath, [...args, '--metrics', '127.0.0.1:0'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (/serving \S+ until interrupted/.test(out)) resolve();
        });
        child.on('exit', () => reject(new Error(`demo exited early: ${err}`)));
      });
      const url = /^metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m.exec(out)?.[1];
      expect(url).toBeDefined();
      const f = await scrape(url!);
      // The pools table the demo printed, row by row.
      const rows = [
        ...out.matchAll(/^(node-\d)\s+\S+\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+\d+\s+\d+s\s+ready$/gm),
      ];
      expect(rows.map((m) => m[1])).toEqual(['node-1', 'node-2', 'node-3']);
      for (const m of rows) {
        expect(value(f, 'ovnkit_pool_total', { node: m[1]!, state: 'idle' }), m[1]).toBe(
          Number(m[2]),
        );
        expect(value(f, 'ovnkit_pool_total', { node: m[1]!, state: 'in_use' }), m[1]).toBe(
          Number(m[3]),
        );
      }
      expect(out).toMatch(/^node-4 .* failed: BadBounds/m);
      const c = /controller: (\d+) reconciles, (\d+) deletes, (\d+) failed attempts/.exec(out)!;
      expect(c).not.toBeNull();
      expect(
        value(f, 'ovnkit_controller_reconciles_total', { kind: 'pod', result: 'success' }),
      ).toBe(Number(c[1]) + Number(c[2]));
      expect(
        value(f, 'ovnkit_controller_reconciles_total', { kind: 'pod', result: 'failure' }),
      ).toBe(Number(c[3]));
      expect(
        value(f, 'ovnkit_controller_failures_total', { kind: 'pool', reason: 'BadBounds' }),
      ).toBe(1);
      // The database client's metrics too (the SDK's prometheusMetrics).
      expect(f.get('ovnkit_client_transactions_total')?.type).toBe('counter');
      expect(
        f.get('ovnkit_client_transactions_total')!.samples.reduce((a, x) => a + x.value, 0),
      ).toBeGreaterThan(0);
      const starts = Number(/(\d+) pod starts from a warm pool/.exec(out)?.[1]);
      expect(starts).toBeGreaterThan(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(err).toBe('');
  }, 60_000);
});

/** Run the demo (pods, pools, controllers) in a fresh process; the module files it loaded. */
async function demoLoads(observe: boolean): Promise<string[]> {
  const hook = pathToFileURL('test/packaging/consumer/resolve-hook.mjs').href;
  const demo = pathToFileURL('examples/pod-allocation/demo.ts').href;
  const code = `
    import { createRequire, register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const urls = [];
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (u) => urls.push(u));
    port1.unref();
    register(${JSON.stringify(hook)}, import.meta.url, { data: { port: port2 }, transferList: [port2] });
    const { runDemo } = await import(${JSON.stringify(demo)});
    const require = createRequire(import.meta.url);
    let metrics;
    if (${observe}) {
      const { controllerMetrics } = await import(${JSON.stringify(pathToFileURL('examples/pod-allocation/pools/index.ts').href)});
      metrics = controllerMetrics(require('prom-client'));
    }
    const s = await runDemo({ print: () => {}, metrics });
    if (s.ready !== 37) throw new Error('demo: ' + s.ready + ' ready');
    await new Promise((r) => setTimeout(r, 100));
    process.stdout.write(JSON.stringify([...urls, ...Object.keys(require.cache)]));
  `;
  const env = { ...process.env };
  delete env['OVN_NB_DB'];
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=ovnkit-source', '--import', 'tsx', '--input-type=module', '-e', code],
    { env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as string[];
}

describe('without metrics', () => {
  const OBSERVABILITY = /\/node_modules\/(prom-client|@opentelemetry\/[^/]+)\//;
  it('the demo, its controllers and pools load neither prom-client nor @opentelemetry', async () => {
    const files = await demoLoads(false);
    expect(files.some((f) => f.endsWith('/examples/pod-allocation/pools/reconciler.ts'))).toBe(
      true,
    );
    expect(files.filter((f) => OBSERVABILITY.test(f))).toEqual([]);
    // The check sees them when they are used.
    const observed = await demoLoads(true);
    expect(observed.some((f) => /\/node_modules\/prom-client\//.test(f))).toBe(true);
  }, 120_000);
});
