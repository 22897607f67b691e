/**
 * Cross-site WebSocket hijacking, in a real browser: `ovnkit bridge
 * --no-auth --static DIR` (the CLI, as a process; once as is and once with
 * `--allow-origin <listed>`) in front of a real ovsdb-server with an OVN
 * Northbound database, and headless
 * Chromium loading one small page from several origins: the bridge itself,
 * a second local HTTP server whose origin is listed, a third one that is
 * not, the bridge under `localhost` instead of `127.0.0.1`, and the bridge
 * under a DNS name that Chromium resolves to 127.0.0.1 (DNS rebinding). Each
 * page tries to insert a Logical_Switch through the bridge; the test checks
 * what the page saw (403 or the insert's reply) and what the database holds.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';

const CHROMIUM = '/usr/bin/chromium';
const NB = 'OVN_Northbound';
const REBIND_HOST = 'rebind.ovnkit.test';

/** The page: `tryInsert(url, name)` opens a WebSocket and inserts a switch. */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>origin probe</title>
<script>
window.tryInsert = (url, name) => new Promise((resolve) => {
  const ws = new WebSocket(url);
  let opened = false;
  const timer = setTimeout(() => resolve({ opened, outcome: 'timeout' }), 8000);
  ws.onopen = () => {
    opened = true;
    ws.send(JSON.stringify({
      method: 'transact',
      params: ['${NB}', { op: 'insert', table: 'Logical_Switch', row: { name } }],
      id: 1,
    }));
  };
  ws.onmessage = (e) => {
    clearTimeout(timer);
    resolve({ opened, outcome: 'reply', reply: JSON.parse(e.data) });
    ws.close();
  };
  ws.onclose = (e) => {
    clearTimeout(timer);
    resolve({ opened, outcome: 'closed', code: e.code });
  };
});
</script>
<p>origin probe</p>
`;

interface Attempt {
  opened: boolean;
  outcome: 'reply' | 'closed' | 'timeout';
  code?: number;
  reply?: { id: unknown; result: unknown; error: unknown };
}

let server: OvsdbServerHandle;
let node: OvsdbConnection;
let dir: string;
let browser: Browser;
/** A bridge process: the default one, and one with `--allow-origin`. */
interface BridgeProcess {
  readonly child: ChildProcess;
  readonly port: number;
  log: string;
}
let bridge: BridgeProcess;
let listing: BridgeProcess;
let bridgePort = 0;
const pageServers: Server[] = [];
let listedPort = 0;
let otherPort = 0;

/** An HTTP server on 127.0.0.1 that serves the page at every path. */
async function pageServer(): Promise<number> {
  const s = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  pageServers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return (s.address() as AddressInfo).port;
}

async function switchNames(): Promise<string[]> {
  const [r] = await node.transact(NB, [
    { op: 'select', table: 'Logical_Switch', where: [], columns: ['name'] },
  ]);
  return (r as { rows: { name: string }[] }).rows.map((row) => row.name).sort();
}

/** Load `pageUrl` in a new tab and try to insert switch `name` through `wsUrl`. */
async function attempt(
  pageUrl: string,
  wsUrl: string,
  name: string,
): Promise<{ result: Attempt; console: string[] }> {
  const page = await browser.newPage();
  const console: string[] = [];
  page.on('console', (m) => console.push(m.text()));
  try {
    await page.goto(pageUrl);
    const result = await page.evaluate(
      ([u, n]) =>
        (globalThis as unknown as { tryInsert(u: string, n: string): Promise<Attempt> }).tryInsert(
          u as string,
          n as string,
        ),
      [wsUrl, name],
    );
    return { result, console };
  } finally {
    await page.close();
  }
}

async function startBridgeProcess(extra: readonly string[]): Promise<BridgeProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/bridge/fixtures/bridge-cli.ts',
      '--listen',
      'ws://127.0.0.1:0/',
      '--remote',
      server.unixRemote,
      '--no-auth',
      '--static',
      dir,
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const started: { child: ChildProcess; port: number; log: string } = { child, port: 0, log: '' };
  child.stderr?.on('data', (d: Buffer) => {
    started.log += d.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bridge exited ${code}: ${started.log}`)));
  });
  const url = /^listening on (\S+)$/.exec(first)?.[1];
  started.port = Number(new URL(url ?? 'ws://x:0/').port);
  expect(started.port).toBeGreaterThan(0);
  return started;
}

async function stopBridgeProcess(b: BridgeProcess | undefined): Promise<void> {
  if (b === undefined || b.child.exitCode !== null) return;
  const exited = new Promise((resolve) => b.child.once('exit', resolve));
  b.child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  requireOvsdbServer(true);
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
  }
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-origin-'));
  await writeFile(join(dir, 'index.html'), PAGE);
  server = await startOvsdbServer({
    schemaPath: 'schema/ovn-nb-7.18.0.ovsschema',
    remotes: ['unix'],
  });
  node = await connect(server.unixRemote);
  listedPort = await pageServer();
  otherPort = await pageServer();
  bridge = await startBridgeProcess([]);
  bridgePort = bridge.port;
  listing = await startBridgeProcess(['--allow-origin', `http://127.0.0.1:${listedPort}`]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=MAP ${REBIND_HOST} 127.0.0.1`,
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stopBridgeProcess(bridge);
  await stopBridgeProcess(listing);
  for (const s of pageServers) await new Promise((resolve) => s.close(resolve));
  node?.close();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the bridge refuses pages of other origins (--no-auth)', () => {
  it('a page from another origin is refused with 403 and inserts nothing', async () => {
    const { result, console } = await attempt(
      `http://127.0.0.1:${otherPort}/attack.html`,
      `ws://127.0.0.1:${bridgePort}/`,
      'sw-cross-site',
    );
    expect(result).toEqual({ opened: false, outcome: 'closed', code: 1006 });
    expect(console.join('\n')).toMatch(/Unexpected response code: 403/);
    expect(await switchNames()).not.toContain('sw-cross-site');
    expect(bridge.log).toMatch(
      new RegExp(`WARN .*refused: origin http://127\\.0\\.0\\.1:${otherPort} is not allowed`),
    );
  }, 30_000);

  it("the bridge's own --static page connects and inserts", async () => {
    const { result } = await attempt(
      `http://127.0.0.1:${bridgePort}/`,
      `ws://127.0.0.1:${bridgePort}/`,
      'sw-same-origin',
    );
    expect(result.opened).toBe(true);
    expect(result.reply).toMatchObject({ id: 1, error: null });
    expect(await switchNames()).toContain('sw-same-origin');
  }, 30_000);

  it('a page from a listed origin (--allow-origin) connects and inserts; others still cannot', async () => {
    const listed = await attempt(
      `http://127.0.0.1:${listedPort}/`,
      `ws://127.0.0.1:${listing.port}/`,
      'sw-listed',
    );
    expect(listed.result.opened).toBe(true);
    expect(listed.result.reply).toMatchObject({ id: 1, error: null });
    // The listed origin is not one of the default bridge's.
    const unlisted = await attempt(
      `http://127.0.0.1:${listedPort}/`,
      `ws://127.0.0.1:${bridgePort}/`,
      'sw-listed-elsewhere',
    );
    expect(unlisted.result).toEqual({ opened: false, outcome: 'closed', code: 1006 });
    const other = await attempt(
      `http://127.0.0.1:${otherPort}/`,
      `ws://127.0.0.1:${listing.port}/`,
      'sw-other-on-listing',
    );
    expect(other.result).toEqual({ opened: false, outcome: 'closed', code: 1006 });
    // Its own page still works with a list.
    const own = await attempt(
      `http://127.0.0.1:${listing.port}/`,
      `ws://127.0.0.1:${listing.port}/`,
      'sw-listing-own',
    );
    expect(own.result.opened).toBe(true);
    const names = await switchNames();
    expect(names).toEqual(expect.arrayContaining(['sw-listed', 'sw-listing-own']));
    expect(names).not.toContain('sw-listed-elsewhere');
    expect(names).not.toContain('sw-other-on-listing');
  }, 30_000);

  it('localhost and 127.0.0.1 are different origins: the page must use its own host name', async () => {
    const crossed = await attempt(
      `http://localhost:${bridgePort}/`,
      `ws://127.0.0.1:${bridgePort}/`,
      'sw-localhost-crossed',
    );
    expect(crossed.result).toEqual({ opened: false, outcome: 'closed', code: 1006 });
    expect(crossed.console.join('\n')).toMatch(/Unexpected response code: 403/);
    const same = await attempt(
      `http://localhost:${bridgePort}/`,
      `ws://localhost:${bridgePort}/`,
      'sw-localhost',
    );
    expect(same.result.opened).toBe(true);
    expect(same.result.reply).toMatchObject({ id: 1, error: null });
    const names = await switchNames();
    expect(names).toContain('sw-localhost');
    expect(names).not.toContain('sw-localhost-crossed');
  }, 30_000);

  it('DNS rebinding: the bridge served under a foreign name is not its own origin', async () => {
    // Chromium resolves REBIND_HOST to 127.0.0.1, as a hostile DNS server
    // would: the page (served by the bridge itself) and the WebSocket share
    // an origin, but that origin is a name the bridge was not given.
    const { result, console } = await attempt(
      `http://${REBIND_HOST}:${bridgePort}/`,
      `ws://${REBIND_HOST}:${bridgePort}/`,
      'sw-rebind',
    );
    expect(result).toEqual({ opened: false, outcome: 'closed', code: 1006 });
    expect(console.join('\n')).toMatch(/Unexpected response code: 403/);
    expect(await switchNames()).not.toContain('sw-rebind');
  }, 30_000);

  it('the page served by the bridge is the static file', async () => {
    const res = await fetch(`http://127.0.0.1:${bridgePort}/`);
    expect(await res.text()).toBe(await readFile(join(dir, 'index.html'), 'utf8'));
  });
});
