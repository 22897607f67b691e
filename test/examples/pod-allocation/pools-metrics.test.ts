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
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { NB_SCHEMA } from './helpers.js';
import { makeNodes, poolRig } from './pools-rig.js';

// Loaded as a Node program loads it (see metrics-require.ts).
const promClient = requirePackage('prom-client') as typeof import('prom-client');

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Family {
  readonly type: string;
  readonly help: string | undefined;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value ${text}`);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (eq < 0 || !LABEL.test(name)) throw new Error(`bad label name in ${line}`);
    if (name in labels) throw new Error(`label ${name} twice in ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`unquoted label value in ${line}`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`bad escape \\${next} in ${line}`);
      } else value += text[j];
    }
    if (text[j] !== '"') throw new Error(`unterminated label value in ${line}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (i < text.length) throw new Error(`expected , between labels in ${line}`);
  }
  return labels;
}

/** Parse the text exposition format, checking its rules; families by name. */
function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const done = new Set<string>();
  let current: string | undefined;
  const familyOf = (sample: string) => {
    for (const suffix of ['_bucket', '_sum', '_count', '']) {
      const base = suffix === '' ? sample : sample.slice(0, -suffix.length);
      if (sample.endsWith(suffix) && families.has(base)) {
        const t = families.get(base)!.type;
        if (suffix === '' || t === 'histogram' || t === 'summary') return base;
      }
    }
    throw new Error(`sample ${sample} has no # TYPE before it`);
  };
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta !== null) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name!)) throw new Error(`bad metric name ${name}`);
      const f = families.get(name!);
      if (kind === 'TYPE') {
        if (f?.type !== undefined && f.type !== 'untyped')
          throw new Error(`second TYPE of ${name}`);
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest!))
          throw new Error(`bad type ${rest}`);
        if (f !== undefined && f.samples.length > 0)
          throw new Error(`TYPE of ${name} after samples`);
        families.set(name!, { type: rest!, help: f?.help, samples: f?.samples ?? [] });
      } else {
        families.set(name!, { type: f?.type ?? 'untyped', help: rest, samples: f?.samples ?? [] });
      }
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (m === null) throw new Error(`bad sample line ${line}`);
    const family = familyOf(m[1]!);
    if (current !== family) {
      if (done.has(family)) throw new Error(`samples of ${family} are not grouped`);
      if (current !== undefined) done.add(current);
      current = family;
    }
    families.get(family)!.samples.push({
      name: m[1]!,
      labels: parseLabels(m[2] ?? '', line),
      value: parseValue(m[3]!),
    });
  }
  for (const [name, f] of families) {
    if (f.type === 'counter') for (const s of f.samples) expect(s.name).toBe(name);
    if (f.type === 'counter') expect(name.endsWith('_total'), name).toBe(true);
    if (f.type === 'histogram') {
      const series = new Map<string, Sample[]>();
      for (const s of f.samples.filter((x) => x.name === `${name}_bucket`)) {
        const { le, ...rest } = s.labels;
        expect(le, name).toBeDefined();
        const key = JSON.stringify(rest);
        series.set(key, [...(series.get(key) ?? []), s]);
      }
      for (const [key, buckets] of series) {
        for (let i = 1; i < buckets.length; i++)
          expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
        expect(buckets.at(-1)!.labels['le']).toBe('+Inf');
        const count = f.samples.find(
          (x) => x.name === `${name}_count` && JSON.stringify(x.labels) === key,
        );
        expect(count?.value, `${name}_count ${key}`).toBe(buckets.at(-1)!.value);
      }
    }
  }
  return families;
}

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
    ['--import', 'tsx', '--input-type=module', '-e', code],
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
