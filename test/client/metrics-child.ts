/**
 * A fresh process for `metrics-noload.test.ts`: import ovnkit's entry
 * points, serve a database from memory, open it, transact and close, then
 * print every module file loaded (ES modules through a resolve hook,
 * CommonJS ones from the require cache) as JSON. With `--observe`, the
 * client and server get prom-client metrics and an OpenTelemetry tracer
 * (so the test can see that the check would notice them).
 */

import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const urls: string[] = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (url: string) => urls.push(url));
port1.unref();
register('../packaging/consumer/resolve-hook.mjs', import.meta.url, {
  data: { port: port2 },
  transferList: [port2],
});

const observe = process.argv.includes('--observe');
const root = await import('../../src/index.js');
await import('../../src/client/index.js');
await import('../../src/transactions/index.js');
await import('../../src/nb/index.js');
const { createServer } = await import('../../src/server/index.js');
const { TEST_SCHEMA } = await import('../helpers/server.js');
const { TEST_MODEL } = await import('./helpers/fixtures.js');

const require = createRequire(import.meta.url);
let metrics: import('../../src/observability/prometheus.js').PrometheusMetrics<unknown> | undefined;
let tracer: import('../../src/observability/tracing.js').Tracer | undefined;
if (observe) {
  const prom = require('prom-client') as typeof import('prom-client');
  const { prometheusMetrics } = await import('../../src/observability/prometheus.js');
  metrics = prometheusMetrics(prom, { registry: new prom.Registry() });
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  tracer = api.trace.getTracer('child');
}

const server = await createServer({
  databases: [TEST_SCHEMA],
  listen: ['ptcp:0:127.0.0.1'],
  ...(metrics === undefined ? {} : { metrics }),
});
const db = await root.openDatabase({
  remotes: server.remotes[0]!,
  model: TEST_MODEL,
  ...(metrics === undefined ? {} : { metrics }),
  ...(tracer === undefined ? {} : { tracer }),
});
await db.transact((tx) => {
  tx.insert('Item', { name: 'x', n: 1 });
});
db.reconnect();
await db.whenSynced();
await db.close();
await server.close();

// Let the hook thread's last messages arrive.
await new Promise((resolve) => setTimeout(resolve, 100));
process.stdout.write(JSON.stringify({ esm: urls, cjs: Object.keys(require.cache) }));
