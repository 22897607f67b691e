/**
 * `ovnkit bridge` on the command line: usage errors, a full run with a token
 * file, an allowlist, read-only mode and static files, and a clean stop on
 * SIGTERM (clients are closed with 1001).
 */

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bridge } from '../../src/bridge/bridge.js';
import { BRIDGE_USAGE, runBridgeCli } from '../../src/bridge/cli.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import { permissionError, RawClient } from './helpers.js';

let server: OvsdbServerHandle;
let dir: string;

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix'] });
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-bridge-cli-'));
  await writeFile(join(dir, 'tokens'), '# tokens\ncli-token\n');
  await mkdir(join(dir, 'www'));
  await writeFile(join(dir, 'www', 'index.html'), '<p>hello</p>\n');
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** GET `path` as written (no URL normalization), resolving with the status. */
function httpStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

function capture() {
  let out = '';
  let err = '';
  return {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

describe('ovnkit bridge arguments', () => {
  it('--help prints the usage', async () => {
    const io = capture();
    expect(await runBridgeCli(['--help'], io)).toBe(0);
    expect(io.out).toBe(BRIDGE_USAGE);
    expect(io.out).toContain('--token-file FILE');
  });

  it.each([
    [[], /--listen is required/],
    [['--listen', 'ws://127.0.0.1:0'], /--remote is required/],
    [
      ['--listen', 'ws://127.0.0.1:0', '--remote', 'unix:/x', '--bogus'],
      /Unknown option '--bogus'/,
    ],
    [
      ['--listen', 'ws://127.0.0.1:0', '--remote', 'unix:/x', 'extra'],
      /unexpected argument "extra"/,
    ],
    [
      ['--listen', 'ws://127.0.0.1:0', '--remote', 'unix:/x', '--max-frame-bytes', '10k'],
      /--max-frame-bytes needs a positive integer, got "10k"/,
    ],
    [
      ['--listen', 'ws://127.0.0.1:0', '--remote', 'unix:/x', '--allow-method', 'rm_rf'],
      /unknown method "rm_rf"/,
    ],
    [['--listen', 'ws://127.0.0.1:0', '--remote', 'unix:/x', '--tls-cert', 'c.pem'], /go together/],
    [['--listen', 'ws://127.0.0.1:0', '--remote', 'unix:/x'], /a token is required/],
    [
      ['--listen', 'ws://0.0.0.0:0', '--remote', 'unix:/x', '--no-auth'],
      /only allowed when listening on a loopback address/,
    ],
    [
      [
        '--listen',
        'ws://127.0.0.1:0',
        '--remote',
        'unix:/x',
        '--no-auth',
        '--allow-origin',
        'https://ui.example.com/app',
      ],
      /allowOrigins: "https:\/\/ui\.example\.com\/app" is not an origin/,
    ],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const io = capture();
    expect(await runBridgeCli(argv, io)).toBe(2);
    expect(io.err).toMatch(message);
  });

  it('an unreadable token file fails with exit 1', async () => {
    const io = capture();
    const argv = [
      '--listen',
      'ws://127.0.0.1:0',
      '--remote',
      'unix:/x',
      '--token-file',
      join(dir, 'missing'),
    ];
    expect(await runBridgeCli(argv, io)).toBe(1);
    expect(io.err).toMatch(/ENOENT/);
  });
});

describe('ovnkit bridge running', () => {
  it('serves clients with the token file, allowlist, read-only mode and static files', async () => {
    const io = capture();
    const controller = new AbortController();
    let bridge: Bridge | undefined;
    let listened!: () => void;
    const listening = new Promise<void>((resolve) => {
      listened = resolve;
    });
    const exit = runBridgeCli(
      [
        '--listen',
        'ws://127.0.0.1:0/ovsdb',
        '--remote',
        server.unixRemote,
        '--token-file',
        join(dir, 'tokens'),
        '--allow-db',
        DB,
        '--read-only',
        '--static',
        join(dir, 'www'),
        '--max-frame-bytes',
        '100000',
      ],
      {
        ...io,
        signal: controller.signal,
        onListening: (b) => {
          bridge = b;
          listened();
        },
      },
    );
    await listening;
    if (!bridge) throw new Error('no bridge');
    expect(io.out).toBe(`listening on ${bridge.url}\n`);

    const conn = await connect(bridge.url, { token: 'cli-token' });
    expect(await conn.listDbs()).toEqual([DB]);
    const client = await RawClient.open(bridge.url, { token: 'cli-token' });
    const reply = await client.request('transact', [
      DB,
      { op: 'delete', table: 'Item', where: [] },
    ]);
    expect(reply).toEqual(permissionError(reply['id'], /read-only bridge/, 0));
    const page = await fetch(bridge.url.replace('ws:', 'http:').replace('/ovsdb', '/'));
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<p>hello</p>\n');
    // Paths that leave the directory are not served, however they are spelled.
    const port = new URL(bridge.url.replace('ws:', 'http:')).port;
    for (const path of ['/../tokens', '/..%2ftokens', '/%2e%2e/tokens']) {
      expect([path, await httpStatus(Number(port), path)]).toEqual([path, 404]);
    }

    controller.abort();
    expect(await exit).toBe(0);
    expect(await client.closed).toEqual({ code: 1001, reason: 'the bridge is shutting down' });
    expect(io.err).toMatch(/INFO listening on ws:\/\/127\.0\.0\.1:\d+\/ovsdb, forwarding to unix:/);
    conn.close();
  });

  it('--allow-origin "*" warns on stderr', async () => {
    const io = capture();
    const controller = new AbortController();
    const exit = runBridgeCli(
      [
        '--listen',
        'ws://127.0.0.1:0',
        '--remote',
        server.unixRemote,
        '--no-auth',
        '--allow-origin',
        '*',
      ],
      { ...io, signal: controller.signal, onListening: () => controller.abort() },
    );
    expect(await exit).toBe(0);
    expect(io.err).toMatch(/WARN allowOrigins "\*": a page from any web site/);
  });

  it('as a process, stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/bridge/fixtures/bridge-cli.ts',
        '--listen',
        'ws://127.0.0.1:0',
        '--remote',
        server.unixRemote,
        '--no-auth',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve) => lines.once('line', resolve));
    const url = /^listening on (\S+)$/.exec(first)?.[1];
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/$/);
    const client = await RawClient.open(url!);
    expect((await client.request('echo', ['cli']))['result']).toEqual(['cli']);
    child.kill('SIGTERM');
    expect(await client.closed).toEqual({ code: 1001, reason: 'the bridge is shutting down' });
    expect(await exited).toBe(0);
  }, 30_000);
});
