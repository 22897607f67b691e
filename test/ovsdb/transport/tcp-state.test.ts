/**
 * The kernel's view of a TCP connection (`tcp-state.ts`): addresses written
 * as `/proc/net/tcp` writes them, the state parsed from a table line
 * (`TIME_WAIT` entries skipped), and, on Linux, a real loopback connection
 * over IPv4 and IPv6 found in the kernel's table, with bytes the peer has
 * acknowledged (nothing unacknowledged, no retransmission), and an `ssl:`
 * connection to ovsdb-server: its socket transport reads the state of the
 * TCP connection under TLS.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSocketTransport } from '../../../src/ovsdb/transport/socket-transport.js';
import {
  findState,
  kernelAddress,
  tcpStateReader,
} from '../../../src/ovsdb/transport/tcp-state.js';
import { createPki, readClientTls, startOvsdbServer } from '../../../src/testing/index.js';
import { TEST_SCHEMA } from '../../helpers/server.js';

const LE = endianness() === 'LE';

describe('kernelAddress', () => {
  it('writes each 32-bit word in the host byte order', () => {
    expect(kernelAddress('127.0.0.1', false)).toBe(LE ? '0100007F' : '7F000001');
    expect(kernelAddress('10.1.2.3', false)).toBe(LE ? '0302010A' : '0A010203');
    expect(kernelAddress('::1', true)).toBe(
      LE ? '00000000000000000000000001000000' : '00000000000000000000000000000001',
    );
    expect(kernelAddress('::ffff:127.0.0.1', true)).toBe(
      LE ? '0000000000000000FFFF00000100007F' : '00000000000000000000FFFF7F000001',
    );
    expect(kernelAddress('fe80::1%eth0', true)).toBe(
      LE ? '000080FE000000000000000001000000' : 'FE800000000000000000000000000001',
    );
  });

  it('refuses what is not an address', () => {
    expect(kernelAddress('localhost', false)).toBeUndefined();
    expect(kernelAddress('1.2.3', false)).toBeUndefined();
    expect(kernelAddress('1:2:3', true)).toBeUndefined();
  });
});

describe('findState', () => {
  const key = ' 0100007F:9C40 0100007F:1A0B ';
  const header =
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
  const line = (st: string, tx: string, retr: string, probes: string) =>
    `   7: 0100007F:9C40 0100007F:1A0B ${st} ${tx}:00000000 01:00000014 ${retr}     0        ${probes} 41721 1 0000000000000000 20 4 30 10 -1\n`;

  it('reads the unacknowledged bytes, retransmissions and unanswered probes', () => {
    const text = `${header}${line('01', '00000064', '00000005', '0')}`;
    expect(findState(text, key)).toEqual({
      unacknowledgedBytes: 100,
      retransmits: 5,
      unansweredProbes: 0,
    });
    expect(findState(`${header}${line('01', '00000000', '00000000', '7')}`, key)).toEqual({
      unacknowledgedBytes: 0,
      retransmits: 0,
      unansweredProbes: 7,
    });
  });

  it('skips TIME_WAIT entries and other connections', () => {
    const text = `${header}${line('06', '00000000', '00000000', '0')}${line('01', '0000000A', '00000001', '0')}`;
    expect(findState(text, key)?.unacknowledgedBytes).toBe(10);
    expect(findState(text, ' 0100007F:9C41 0100007F:1A0B ')).toBeUndefined();
    expect(findState(`${header}${line('06', '00000000', '00000000', '0')}`, key)).toBeUndefined();
  });
});

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

async function pair(host: string): Promise<net.Socket> {
  const server = net.createServer((s) => s.resume());
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, host, () => ok());
  });
  const client = net.connect((server.address() as net.AddressInfo).port, host);
  await new Promise<void>((ok, fail) => {
    client.once('error', fail);
    client.once('connect', () => ok());
  });
  closers.push(() => {
    client.destroy();
    server.close();
  });
  return client;
}

function ipv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(0, '::1', () => s.close(() => resolve(true)));
  });
}

describe.runIf(process.platform === 'linux')('tcpStateReader on Linux', () => {
  it.each(['127.0.0.1', '::1'])(
    'finds a loopback connection to %s in the kernel table',
    async (host) => {
      if (host === '::1' && !(await ipv6Loopback())) return;
      const socket = await pair(host);
      await new Promise<void>((ok) => socket.write('x'.repeat(1000), () => ok()));
      await new Promise((r) => setTimeout(r, 50));
      const read = tcpStateReader(socket);
      expect(read).toBeDefined();
      expect(await read!()).toEqual({
        unacknowledgedBytes: 0,
        retransmits: 0,
        unansweredProbes: 0,
      });
    },
  );

  it('reads the TCP connection under an ssl: transport', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ovnkit-tcp-state-'));
    const pki = await createPki(join(dir, 'pki'), { unrelatedCa: false });
    const server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['ssl'], pki });
    try {
      const t = await openSocketTransport(server.remotes.ssl!, { tls: await readClientTls(pki) });
      closers.push(() => t.close());
      expect(t.tcpState).toBeDefined();
      expect(await t.tcpState!()).toMatchObject({ retransmits: 0, unansweredProbes: 0 });
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('has nothing to read for a unix socket', async () => {
    const dir = join(tmpdir(), `ovnkit-tcp-state-${process.pid}.sock`);
    const server = net.createServer();
    await new Promise<void>((ok) => server.listen(dir, () => ok()));
    const client = net.connect(dir);
    await new Promise<void>((ok) => client.once('connect', () => ok()));
    closers.push(() => {
      client.destroy();
      server.close();
    });
    expect(tcpStateReader(client)).toBeUndefined();
  });
});
