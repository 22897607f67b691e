/**
 * The controller process's Kubernetes probes (`main.ts --probes`,
 * `examples/pod-allocation/probes.ts`) over a real ovsdb-server: `/readyz`
 * answers 200 once the client is in sync and 503 while it is not (the
 * server killed: the client reconnects), and 200 again once it has
 * resynced after the server's restart; `/healthz` stays 200 throughout, as
 * the process and its client live on. Both show the client's health.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { ClientHealth } from '../../../src/client/index.js';
import { requireOvsdbServer, startOvsdbServer } from '../../../src/testing/index.js';
import { ROOT } from '../ovn-rig.js';
import { NB_SCHEMA } from './helpers.js';

requireOvsdbServer();

type Answer = { status: number; body: ClientHealth & { ok: boolean; state: string } };

async function probe(url: string): Promise<Answer> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

/** Poll `url` until it answers `status` (within 20 s); returns that answer. */
async function until(url: string, status: number): Promise<Answer> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const a = await probe(url);
    if (a.status === status) return a;
    if (Date.now() > deadline) throw new Error(`${url} still answers ${a.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('/readyz fails while the client is not in sync; /healthz stays up', async () => {
  const server = await startOvsdbServer({ schemaPath: NB_SCHEMA });
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-probes-'));
  writeFileSync(join(dir, 'pods.json'), JSON.stringify({ pods: [] }));
  const child = spawn(
    process.execPath,
    [
      '--conditions=ovnkit-source',
      '--import',
      'tsx',
      join(ROOT, 'examples', 'pod-allocation', 'main.ts'),
      '--nb',
      server.unixRemote,
      '--pods',
      join(dir, 'pods.json'),
      '--probes',
      '127.0.0.1:0',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d;
        const m = /^probes (\S+)$/m.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`main.ts exited with ${code}`)));
    });
    child.stderr!.resume();

    const ready = await until(`${base}/readyz`, 200);
    expect(ready.body).toMatchObject({
      ok: true,
      state: 'connected',
      connected: true,
      inSync: true,
      remote: server.unixRemote,
      role: 'standalone',
    });
    expect(ready.body.lastMessageAgeMs).toBeGreaterThanOrEqual(0);
    expect(ready.body.lastUpdateAgeMs).toBeGreaterThanOrEqual(0);

    await server.kill();
    const notReady = await until(`${base}/readyz`, 503);
    expect(notReady.body).toMatchObject({ ok: false, connected: false, inSync: false });
    expect(notReady.body.state).not.toBe('connected');
    const live = await probe(`${base}/healthz`);
    expect(live.status).toBe(200);
    expect(live.body.inSync).toBe(false);

    await server.restart();
    expect((await until(`${base}/readyz`, 200)).body.inSync).toBe(true);
    expect((await fetch(`${base}/other`)).status).toBe(404);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
