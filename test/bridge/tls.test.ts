/**
 * TLS on both sides of the bridge: `wss:` towards clients (certificate and
 * key from `ovs-pki`) and `ssl:` towards ovsdb-server (with a client
 * certificate), from the API and from the command line.
 */

import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bridge, BridgeConfigError, startBridge } from '../../src/bridge/bridge.js';
import { runBridgeCli } from '../../src/bridge/cli.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { ConnectionClosedError } from '../../src/ovsdb/wire/errors.js';
import {
  type OvsdbServerHandle,
  PKI_SERVER_NAME,
  type Pki,
  readClientTls,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';

const TOKEN = 'tls-token';
let server: OvsdbServerHandle;
let pki: Pki;
let bridge: Bridge;

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix', 'ssl'] });
  if (!server.pki) throw new Error('the server has no PKI');
  pki = server.pki;
  const [cert, key] = await Promise.all([
    readFile(pki.server.certificate, 'utf8'),
    readFile(pki.server.privateKey, 'utf8'),
  ]);
  bridge = await startBridge({
    listen: 'wss://127.0.0.1:0/ovsdb',
    remote: server.remotes.ssl!,
    remoteTls: await readClientTls(pki),
    tokens: [TOKEN],
    tls: { cert, key },
  });
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await server?.stop();
});

describe('wss: to clients, ssl: to the server', () => {
  it('a client that trusts the CA talks to the server through both TLS hops', async () => {
    expect(bridge.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/ovsdb$/);
    const tls = await readClientTls(pki, { credential: null });
    const conn = await connect(bridge.url, { token: TOKEN, tls });
    expect([...(await conn.listDbs())].sort()).toEqual([DB, '_Server']);
    expect(await conn.transact(DB, [{ op: 'comment', comment: 'over wss and ssl' }])).toEqual([{}]);
    conn.close();
  });

  it('a client that does not trust the certificate cannot connect', async () => {
    const err = await connect(bridge.url, { token: TOKEN, timeoutMs: 5000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(String(err)).toMatch(/certificate/i);
  });

  it('wss: needs a certificate; ws: refuses one', async () => {
    await expect(
      startBridge({ listen: 'wss://127.0.0.1:0', remote: server.unixRemote, tokens: ['t'] }),
    ).rejects.toThrow(BridgeConfigError);
    await expect(
      startBridge({
        listen: 'ws://127.0.0.1:0',
        remote: server.unixRemote,
        tokens: ['t'],
        tls: { cert: 'x', key: 'y' },
      }),
    ).rejects.toThrow(/not wss:/);
  });

  it('the command line takes --tls-cert/--tls-key and the --remote-* TLS options', async () => {
    const controller = new AbortController();
    const { writeFile, mkdtemp, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'ovnkit-bridge-tls-'));
    await writeFile(join(dir, 'tokens'), `${TOKEN}\n`);
    let url = '';
    let listened!: () => void;
    const listening = new Promise<void>((resolve) => {
      listened = resolve;
    });
    const exit = runBridgeCli(
      [
        '--listen',
        'wss://127.0.0.1:0/ovsdb',
        '--remote',
        server.remotes.ssl!,
        '--token-file',
        join(dir, 'tokens'),
        '--tls-cert',
        pki.server.certificate,
        '--tls-key',
        pki.server.privateKey,
        '--remote-ca',
        pki.caCert,
        '--remote-cert',
        pki.client.certificate,
        '--remote-key',
        pki.client.privateKey,
        '--remote-servername',
        PKI_SERVER_NAME,
      ],
      {
        stdout: { write: () => true },
        stderr: { write: () => true },
        signal: controller.signal,
        onListening: (b) => {
          url = b.url;
          listened();
        },
      },
    );
    try {
      await listening;
      const conn = await connect(url, {
        token: TOKEN,
        tls: await readClientTls(pki, { credential: null }),
      });
      expect(await conn.echo('cli tls')).toEqual(['cli tls']);
      conn.close();
    } finally {
      controller.abort();
      expect(await exit).toBe(0);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
