/**
 * Hostile peers of `ovnkit-server --metrics`, the process started with
 * `ulimit -n 256`: 400 connections to the metrics port that send nothing
 * must not take the descriptors OVSDB clients and `ovs-appctl` need (the
 * endpoint keeps a small limit of its own, and closes idle connections);
 * and a request whose `Host` is not the endpoint's (a page of a hostile
 * name resolved to 127.0.0.1: DNS rebinding) gets 421.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { type FileServer, startFileServer } from '../server/file-servers.js';
import { freePort, NB_SCHEMA, transactAsBystander } from './helpers.js';

let dir: string;
let server: FileServer;
let port: number;

beforeAll(async () => {
  const tools = requireOvsdbServer(false);
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-hostile-metrics-'));
  const db = join(dir, 'nb.db');
  await runTool(tools.ovsdbTool, ['create', db, NB_SCHEMA]);
  port = await freePort();
  server = await startFileServer(
    'ovnkit-server',
    dir,
    db,
    ['--metrics', `127.0.0.1:${port}`],
    'ulimit -n 256',
  );
});

afterAll(async () => {
  await server?.kill();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Open a connection to the metrics port; resolves once connected (or failed: then it is closed). */
function open(): Promise<Socket> {
  return new Promise((resolve) => {
    const s = netConnect(port, '127.0.0.1');
    s.on('error', () => undefined);
    s.once('connect', () => resolve(s));
    s.once('close', () => resolve(s));
  });
}

/** Send one request with `host` as its Host header; resolves with the status line. */
function get(host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = netConnect(port, '127.0.0.1');
    let text = '';
    s.setEncoding('latin1');
    s.on('data', (t: string) => {
      text += t;
    });
    s.on('error', reject);
    s.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
    s.write(`GET /metrics HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

describe('the metrics endpoint keeps to its own bounds', () => {
  it('400 idle connections leave OVSDB clients and ovs-appctl working, and are closed', async () => {
    const idle = await Promise.all(Array.from({ length: 400 }, () => open()));
    try {
      await sleep(500);
      const kept = idle.filter((s) => !s.destroyed && s.readyState === 'open').length;
      expect(kept).toBeLessThanOrEqual(16);
      expect(await transactAsBystander(`unix:${server.sock}`, 'after-metrics-flood')).toEqual([
        { name: 'after-metrics-flood' },
      ]);
      const version = await runTool(requireOvsdbServer(false).ovsAppctl, [
        '-t',
        server.ctl,
        'version',
      ]);
      expect(version).toContain('ovnkit');
      // Those kept are closed once idle (10 s).
      const deadline = Date.now() + 30_000;
      while (idle.some((s) => s.readyState === 'open') && Date.now() < deadline) await sleep(200);
      expect(idle.filter((s) => s.readyState === 'open')).toHaveLength(0);
      expect(await get(`127.0.0.1:${port}`)).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const s of idle) s.destroy();
    }
  }, 60_000);

  it.each([
    ['127.0.0.1', true],
    ['localhost', true],
    ['rebind.attacker.example', false],
    ['127.0.0.2', false],
  ])('Host %s with the bound port: answered %s', async (name, answered) => {
    expect(await get(`${name}:${port}`)).toMatch(
      answered ? /^HTTP\/1\.1 200 / : /^HTTP\/1\.1 421 /,
    );
  });

  it('a Host naming another port gets 421', async () => {
    expect(await get(`127.0.0.1:${port === 1 ? 2 : 1}`)).toMatch(/^HTTP\/1\.1 421 /);
    expect(await get('127.0.0.1')).toMatch(/^HTTP\/1\.1 421 /);
  });
});
