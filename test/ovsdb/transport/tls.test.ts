/**
 * TLS against a `pssl:` server (a real ovsdb-server and the in-memory
 * server) with certificates made by ovs-pki: mutual authentication, and
 * refusals on both sides.
 */

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { ConnectionClosedError } from '../../../src/ovsdb/wire/errors.js';
import {
  createPki,
  type OvsdbServerHandle,
  PKI_SERVER_NAME,
  type Pki,
  readClientTls,
  requireOvsdbServer,
} from '../../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../../helpers/server.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';

let dir: string;
let pki: Pki;
let server: OvsdbServerHandle;
let ssl: string;
const open: OvsdbConnection[] = [];

beforeAll(async () => {
  requireOvsdbServer(true);
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-tls-'));
  pki = await createPki(join(dir, 'pki'));
});

afterAll(async () => {
  for (const c of open) c.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function tryConnect(tls: Parameters<typeof connect>[1]): Promise<OvsdbConnection> {
  const conn = await connect(ssl, { timeoutMs: 5000, ...tls });
  open.push(conn);
  return conn;
}

/** The error of connecting and listing the databases, or undefined when both work. */
async function refusal(tls: Parameters<typeof connect>[1]): Promise<unknown> {
  try {
    const conn = await tryConnect(tls);
    await conn.listDbs({ timeoutMs: 5000 });
    return undefined;
  } catch (e) {
    return e;
  }
}

/** The server's log after `offset`, once the server has logged the refusal. */
async function logSince(offset: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const text = (await server.readLog()).slice(offset);
    if (/SSL_accept|stream_ssl/.test(text)) return text;
    await new Promise((r) => setTimeout(r, 20));
  }
  return (await server.readLog()).slice(offset);
}

function causeCode(err: unknown): unknown {
  return (err as { cause?: { code?: unknown } }).cause?.code;
}

/** Every `code` along the error's `cause` chain. */
function causeCodes(err: unknown): unknown[] {
  const codes: unknown[] = [];
  for (let e = err as { cause?: unknown; code?: unknown } | undefined; e; ) {
    if (e.code !== undefined) codes.push(e.code);
    e = e.cause as typeof e;
  }
  return codes;
}

describe.each(SERVER_KINDS)('TLS with certificates from ovs-pki against %s', (kind) => {
  beforeAll(async () => {
    server = await startTestServer(kind, { schema: TEST_SCHEMA, remotes: ['ssl'], pki });
    ssl = server.remotes.ssl!;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('makes certificates whose names are what the tests rely on', async () => {
    expect(pki.server.name).toBe(PKI_SERVER_NAME);
    const { X509Certificate } = await import('node:crypto');
    const cert = new X509Certificate(await readFile(pki.server.certificate));
    expect(cert.subject).toContain(`CN=${PKI_SERVER_NAME}`);
    expect(cert.subjectAltName).toBe(`DNS:${PKI_SERVER_NAME}`);
    const ca = new X509Certificate(await readFile(pki.caCert));
    expect(cert.checkIssued(ca)).toBe(true);
    const other = new X509Certificate(await readFile(pki.otherCaCert!));
    expect(cert.checkIssued(other)).toBe(false);
  });

  it('mutual authentication succeeds', async () => {
    const conn = await tryConnect({ tls: await readClientTls(pki) });
    expect(conn.description).toBe(ssl);
    expect([...(await conn.listDbs())].sort()).toEqual([DB, '_Server']);
    expect(await conn.getSchema(DB)).toEqual(TEST_SCHEMA);
  });

  it('refuses a server whose certificate does not chain to the trusted CA', async () => {
    const err = await refusal({ tls: await readClientTls(pki, { caCert: pki.otherCaCert! }) });
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(String((err as Error).message)).toMatch(/^connection closed: connect to ssl:/);
    expect(causeCode(err)).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });

  it('checks the host name: connecting by IP address needs the certificate name', async () => {
    const noName = await refusal({ tls: { ...(await readClientTls(pki)), servername: undefined } });
    expect(noName).toBeInstanceOf(ConnectionClosedError);
    expect(causeCode(noName)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    const wrongName = await refusal({
      tls: await readClientTls(pki, { servername: 'somebody-else' }),
    });
    expect(causeCode(wrongName)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('a checkServerIdentity that accepts any name verifies the CA only, as OVS does', async () => {
    const tls = { ...(await readClientTls(pki)), servername: undefined };
    const ok = await refusal({ tls: { ...tls, checkServerIdentity: () => undefined } });
    expect(ok).toBeUndefined();
    // The CA is still checked.
    const bad = await refusal({
      tls: {
        ...(await readClientTls(pki, { caCert: pki.otherCaCert! })),
        checkServerIdentity: () => undefined,
      },
    });
    expect(bad).toBeInstanceOf(ConnectionClosedError);
  });

  it('the server refuses a client without a certificate', async () => {
    const before = (await server.readLog()).length;
    const err = await refusal({ tls: await readClientTls(pki, { credential: null }) });
    // With TLS 1.3 the client finishes its handshake first; the server's alert
    // then closes the connection and fails the first request.
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(causeCodes(err).join()).toMatch(/CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE/);
    const log = await logSince(before);
    expect(log).toMatch(/peer did not return a certificate|certificate required/i);
  });

  it('the server refuses a client whose certificate another CA signed', async () => {
    const before = (await server.readLog()).length;
    const err = await refusal({
      tls: await readClientTls(pki, { credential: pki.otherClient! }),
    });
    expect(err).toBeInstanceOf(ConnectionClosedError);
    if (kind === 'ovsdb-server') {
      expect(causeCodes(err).join()).toMatch(/UNKNOWN_CA|HANDSHAKE_FAILURE|DECRYPT_ERROR/);
    }
    // The in-memory server (Node's TLS) checks the chain after the handshake
    // and closes the connection without a TLS alert: no code to match.
    const log = await logSince(before);
    expect(log).toMatch(/unknown ca|certificate verify failed|unable to get local issuer/i);
  });

  it('verification is on by default: no CA means the server is not trusted', async () => {
    const { key, cert } = await readClientTls(pki);
    const err = await refusal({ tls: { key, cert, servername: PKI_SERVER_NAME } });
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(causeCode(err)).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });

  it('rejectUnauthorized: false skips server verification (the client still authenticates)', async () => {
    const { key, cert } = await readClientTls(pki);
    expect(await refusal({ tls: { key, cert, rejectUnauthorized: false } })).toBeUndefined();
  });
});

describe('connect timeouts and aborts during the TLS handshake', () => {
  let silent: net.Server;
  let port: number;
  const sockets: net.Socket[] = [];
  beforeAll(async () => {
    // Accepts connections and never answers the ClientHello.
    silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    port = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('timeoutMs bounds the handshake', async () => {
    const started = Date.now();
    const err = await connect(`ssl:127.0.0.1:${port}`, {
      tls: await readClientTls(pki),
      timeoutMs: 300,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect((err as Error).message).toContain('no connection within 300 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('an AbortSignal stops the attempt with its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 100);
    const err = await connect(`ssl:127.0.0.1:${port}`, {
      tls: await readClientTls(pki),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(err).toBe(reason);
  });
});
