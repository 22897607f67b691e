/**
 * TLS settings given as file paths (`keyFile`, `certFile`, `caFile`) against
 * a real ovsdb-server listening on `pssl:0:127.0.0.1`, with certificates made
 * by ovs-pki: `connect` and `connectDatabase` over ssl:, errors naming the
 * option and the path, and files read again at each reconnection.
 */

import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge } from '../../../src/bridge/bridge.js';
import { ClientClosedError } from '../../../src/client/client.js';
import { connectDatabase } from '../../../src/client/open.js';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import { openSocketTransport } from '../../../src/ovsdb/transport/socket-transport.js';
import { OvsdbError } from '../../../src/ovsdb/wire/errors.js';
import {
  createPki,
  type OvsdbServerHandle,
  PKI_SERVER_NAME,
  type Pki,
  readClientTls,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../../src/testing/index.js';
import { TEST_MODEL } from '../../client/helpers/fixtures.js';
import { DB, TEST_SCHEMA } from '../../helpers/server.js';

let dir: string;
let pki: Pki;
let server: OvsdbServerHandle;
let ssl: string;

beforeAll(async () => {
  requireOvsdbServer(true);
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-tls-files-'));
  pki = await createPki(join(dir, 'pki'));
  server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['ssl'], pki });
  ssl = server.remotes.ssl!;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The client credential and CA as files, and the server's certificate name. */
function files() {
  return {
    keyFile: pki.client.privateKey,
    certFile: pki.client.certificate,
    caFile: pki.caCert,
    servername: PKI_SERVER_NAME,
  };
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('connect over ssl: with file paths', () => {
  it('keyFile, certFile and caFile: mutual authentication works', async () => {
    const conn = await connect(ssl, { timeoutMs: 5000, tls: files() });
    try {
      expect((await conn.listDbs({ timeoutMs: 5000 })).sort()).toEqual([DB, '_Server'].sort());
    } finally {
      conn.close();
    }
  });

  it('files and PEM text may be mixed (key as PEM, the rest as files)', async () => {
    const pem = await readClientTls(pki);
    const conn = await connect(ssl, {
      timeoutMs: 5000,
      tls: {
        key: pem.key,
        certFile: pki.client.certificate,
        caFile: pki.caCert,
        servername: PKI_SERVER_NAME,
      },
    });
    try {
      expect(await conn.listDbs({ timeoutMs: 5000 })).toContain(DB);
    } finally {
      conn.close();
    }
  });

  it.each(['keyFile', 'certFile', 'caFile'] as const)(
    'a missing %s is an OvsdbError naming the option and the path',
    async (option) => {
      const missing = join(dir, `no-${option}.pem`);
      const err = await rejection(
        connect(ssl, { timeoutMs: 5000, tls: { ...files(), [option]: missing } }),
      );
      expect(err).toBeInstanceOf(OvsdbError);
      expect(err.message).toBe(`tls.${option} ${missing}: cannot read: no such file`);
      expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    },
  );

  it('a directory, or a file of the wrong kind, is named too', async () => {
    const asDir = await rejection(openSocketTransport(ssl, { tls: { ...files(), caFile: dir } }));
    expect(asDir.message).toBe(`tls.caFile ${dir}: cannot read: a directory, not a file`);
    const certAsKey = await rejection(
      openSocketTransport(ssl, { tls: { ...files(), keyFile: pki.client.certificate } }),
    );
    expect(certAsKey.message).toMatch(
      new RegExp(`^tls\\.keyFile ${pki.client.certificate}: holds no PEM private key`),
    );
    const keyAsCa = await rejection(
      openSocketTransport(ssl, { tls: { ...files(), caFile: pki.client.privateKey } }),
    );
    expect(keyAsCa.message).toMatch(
      new RegExp(`^tls\\.caFile ${pki.client.privateKey}: holds no PEM certificate`),
    );
  });

  it('the same setting as PEM and as a file is refused', async () => {
    const pem = await readClientTls(pki);
    for (const [pemName, fileName, value] of [
      ['key', 'keyFile', pem.key],
      ['cert', 'certFile', pem.cert],
      ['ca', 'caFile', pem.ca],
    ] as const) {
      const err = await rejection(
        openSocketTransport(ssl, { tls: { ...files(), [pemName]: value } }),
      );
      expect(err).toBeInstanceOf(OvsdbError);
      expect(err.message).toBe(
        `tls.${pemName} and tls.${fileName} are both given: give the PEM text or the file, not both`,
      );
    }
  });
});

describe('connectDatabase over ssl: with file paths', () => {
  it('syncs with keyFile, certFile and caFile', async () => {
    const client = connectDatabase({ remotes: ssl, model: TEST_MODEL, tls: files() });
    try {
      await client.ready;
      expect(client.status.state).toBe('connected');
    } finally {
      await client.close();
    }
  });

  it('the same setting as PEM and as a file throws at once', async () => {
    const pem = await readClientTls(pki);
    expect(() =>
      connectDatabase({ remotes: ssl, model: TEST_MODEL, tls: { ...files(), cert: pem.cert } }),
    ).toThrow(
      new OvsdbError(
        'tls.cert and tls.certFile are both given: give the PEM text or the file, not both',
      ),
    );
  });

  it('a wrong path gives up with the error naming the option and the path', async () => {
    const missing = join(dir, 'nowhere', 'client-privkey.pem');
    const warnings: string[] = [];
    const client = connectDatabase({
      remotes: ssl,
      model: TEST_MODEL,
      tls: { ...files(), keyFile: missing },
      backoff: { maxRetries: 0 },
      logger: { warn: (m) => warnings.push(m) },
    });
    const err = await rejection(client.ready);
    await client.close();
    expect(err).toBeInstanceOf(ClientClosedError);
    expect(err.message).toContain(`tls.keyFile ${missing}: cannot read: no such file`);
    expect(warnings).toContain(`${ssl}: tls.keyFile ${missing}: cannot read: no such file`);
  });

  it('reads the files again at each attempt: replacing refused certificates lets it connect', async () => {
    // The files first hold a credential of the unrelated CA, which the server refuses.
    const rotating = await mkdtemp(join(dir, 'rotating-'));
    const keyFile = join(rotating, 'privkey.pem');
    const certFile = join(rotating, 'cert.pem');
    await copyFile(pki.otherClient!.privateKey, keyFile);
    await copyFile(pki.otherClient!.certificate, certFile);
    const failures: string[] = [];
    let rotated = false;
    const client = connectDatabase({
      remotes: ssl,
      model: TEST_MODEL,
      tls: { keyFile, certFile, caFile: pki.caCert, servername: PKI_SERVER_NAME },
      backoff: { initialDelayMs: 50, maxDelayMs: 200, jitter: 0 },
      logger: {
        warn: (m) => {
          failures.push(m);
          if (rotated) return;
          rotated = true;
          // Rotate: the client's own credential, signed by the server's CA.
          void Promise.all([
            copyFile(pki.client.privateKey, keyFile),
            copyFile(pki.client.certificate, certFile),
          ]);
        },
      },
    });
    try {
      await client.ready;
      expect(client.status.state).toBe('connected');
      // At least one attempt failed with the refused credential before the rotation.
      expect(failures.length).toBeGreaterThan(0);
      expect(failures[0]).toContain(ssl);
      expect(failures[0]).toMatch(/unknown ca/);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('wss: with file paths (through an ovnkit bridge whose ssl: upstream uses files too)', () => {
  it('caFile verifies the bridge; keyFile/certFile/caFile authenticate it to ovsdb-server', async () => {
    const [cert, key] = await Promise.all([
      readFile(pki.server.certificate, 'utf8'),
      readFile(pki.server.privateKey, 'utf8'),
    ]);
    const bridge = await startBridge({
      listen: 'wss://127.0.0.1:0/ovsdb',
      remote: ssl,
      remoteTls: files(),
      tokens: ['files-token'],
      tls: { cert, key },
    });
    try {
      const conn = await connect(bridge.url, {
        token: 'files-token',
        timeoutMs: 5000,
        tls: { caFile: pki.caCert, servername: PKI_SERVER_NAME },
      });
      try {
        expect(await conn.transact(DB, [{ op: 'comment', comment: 'files' }])).toEqual([{}]);
      } finally {
        conn.close();
      }
      const missing = join(dir, 'no-ca.pem');
      const err = await rejection(
        connect(bridge.url, { token: 'files-token', tls: { caFile: missing } }),
      );
      expect(err).toBeInstanceOf(OvsdbError);
      expect(err.message).toBe(`tls.caFile ${missing}: cannot read: no such file`);
      const both = await rejection(
        connect(bridge.url, { token: 'files-token', tls: { ca: cert, caFile: pki.caCert } }),
      );
      expect(both.message).toBe(
        'tls.ca and tls.caFile are both given: give the PEM text or the file, not both',
      );
    } finally {
      await bridge.close();
    }
  });
});
