/**
 * `ovnkit-server --metrics`: the program started as a child process with
 * `--metrics 127.0.0.1:0` prints the bound address; clients connect,
 * transact (committed, unchanged, failed) and monitor; `GET /metrics` then
 * shows exactly those sessions, monitors and transactions, with
 * prom-client's default process metrics. Also: bad `--metrics` values are
 * usage errors, a missing prom-client is reported as such, and
 * `createServer({ metrics })` counts the same way in-process.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import type * as PromClient from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusMetrics } from '../../src/observability/prometheus.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { TransactionError } from '../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { type CliIo, startCli } from '../../src/server/program/cli.js';
import { loadPromClient, parseMetricsAddress } from '../../src/server/program/metrics-http.js';
import { createServer } from '../../src/server/server.js';
import { requirePackage } from '../client/metrics-require.js';
import { parseMetrics, sampleValue, series } from '../client/metrics-text.js';
import { command, ROOT } from './file-servers.js';

const NB = join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema');
const NB_DB = 'OVN_Northbound';

const insertSwitch = (name: string): Operation =>
  ({ op: 'insert', table: 'Logical_Switch', row: { name } }) as Operation;

/** Committed ×2, unchanged ×1 (a select), failed ×1 (a bad column). */
async function transactions(conn: OvsdbConnection): Promise<void> {
  await conn.transact(NB_DB, [insertSwitch('sw0')]);
  await conn.transact(NB_DB, [insertSwitch('sw1')]);
  await conn.transact(NB_DB, [
    { op: 'select', table: 'Logical_Switch', where: [] } as unknown as Operation,
  ]);
  const failed = await conn
    .transact(NB_DB, [
      { op: 'insert', table: 'Logical_Switch', row: { no_such_column: 1 } } as unknown as Operation,
    ])
    .catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(TransactionError);
}

describe('ovnkit-server --metrics', () => {
  let child: ChildProcess;
  let url: string;
  let remote: string;
  let stderr = '';

  beforeAll(async () => {
    const [program, args] = command('ovnkit-server', [
      '--schema',
      NB,
      '--listen',
      'ptcp:0:127.0.0.1',
      '--metrics',
      '127.0.0.1:0',
    ]);
    child = spawn(program, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.setEncoding('utf8').on('data', (t: string) => {
      stderr += t;
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no metrics line: ${out} ${stderr}`)),
        30_000,
      );
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      child.stdout!.setEncoding('utf8').on('data', (t: string) => {
        out += t;
        const m = /^metrics on (http:\/\/\S+)$/m.exec(out);
        const l = /^listening on (tcp:\S+)$/m.exec(out);
        if (m !== null && l !== null) {
          clearTimeout(timer);
          url = m[1]!;
          remote = l[1]!;
          resolve();
        }
      });
    });
  });

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('prints the bound address, and serves the sessions, monitors and transactions', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/metrics$/);
    const a = await connect(remote);
    const b = await connect(remote);
    try {
      await transactions(a);
      await b.monitorCond(NB_DB, 'm1', { Logical_Switch: { columns: ['name'] } });
      await b.monitorCond(NB_DB, 'm2', { Logical_Router: { columns: ['name'] } });
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const s = parseMetrics(await res.text());
      expect(s.types.get('ovnkit_server_sessions')).toBe('gauge');
      expect(s.types.get('ovnkit_server_monitors')).toBe('gauge');
      expect(s.types.get('ovnkit_server_transactions_total')).toBe('counter');
      expect(sampleValue(s, 'ovnkit_server_sessions')).toBe(2);
      expect(sampleValue(s, 'ovnkit_server_monitors')).toBe(2);
      expect(series(s, 'ovnkit_server_transactions_total')).toEqual([
        'db=OVN_Northbound,outcome=committed 2',
        'db=OVN_Northbound,outcome=failed 1',
        'db=OVN_Northbound,outcome=unchanged 1',
      ]);
      // prom-client's default metrics come along.
      expect(s.types.get('process_cpu_user_seconds_total')).toBe('counter');
      expect(sampleValue(s, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    } finally {
      a.close();
      b.close();
    }
    // Once they left: no session, no monitor; the counters stay.
    let s = parseMetrics(await (await fetch(url)).text());
    for (let i = 0; i < 100 && sampleValue(s, 'ovnkit_server_sessions') !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      s = parseMetrics(await (await fetch(url)).text());
    }
    expect(sampleValue(s, 'ovnkit_server_sessions')).toBe(0);
    expect(sampleValue(s, 'ovnkit_server_monitors')).toBe(0);
    expect(
      sampleValue(s, 'ovnkit_server_transactions_total', { db: NB_DB, outcome: 'committed' }),
    ).toBe(2);
  });

  it('answers 404 elsewhere and 405 to other methods', async () => {
    expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
  });
  it('a hostile HTTP peer (garbage, NUL and bad UTF-8, a 1 MiB header, a client that never reads) loses its connection; the endpoint and the server carry on', async () => {
    const { hostname, port } = new URL(url);
    /** Send `bytes` on a raw socket; resolve with what came back once the peer closed it. */
    const raw = (bytes: Buffer, read = true): Promise<string> =>
      new Promise((resolve, reject) => {
        const sock = netConnect(Number(port), hostname.replace(/^\[|\]$/g, ''));
        const got: Buffer[] = [];
        const timer = setTimeout(
          () => reject(new Error('the endpoint kept a hostile connection open')),
          10_000,
        );
        const done = (): void => {
          clearTimeout(timer);
          resolve(Buffer.concat(got).toString('latin1'));
        };
        if (!read) sock.pause();
        sock.on('data', (b: Buffer) => got.push(b));
        sock.on('error', done);
        sock.on('close', done);
        sock.on('connect', () => {
          sock.write(bytes);
          if (!read) setTimeout(() => sock.destroy(), 200);
        });
      });
    expect(await raw(Buffer.from('\u0000\u0001garbage \xff\xfe\r\n\r\n', 'latin1'))).toMatch(
      /^HTTP\/1\.1 400 /,
    );
    const huge = Buffer.from(
      `GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1 << 20)}\r\n\r\n`,
    );
    expect(await raw(huge)).toMatch(/^HTTP\/1\.1 431 /);
    // A client that asks for the metrics and never reads its socket.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        raw(Buffer.from('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'), false),
      ),
    );
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(parseMetrics(await res.text()).types.get('ovnkit_server_sessions')).toBe('gauge');
  });
});

describe('--metrics values', () => {
  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    [':0', { host: undefined, port: 0 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
  ])('%s is read', (text, expected) => {
    expect(parseMetricsAddress(text)).toEqual(expected);
  });

  it.each([
    ['9464', /expected \[IP\]:PORT/],
    ['127.0.0.1:70000', /port must be 0 to 65535, got 70000/],
    ['host:port', /expected \[IP\]:PORT/],
  ])('%s is a usage error', async (value, message) => {
    let err = '';
    const io: CliIo = {
      stdout: () => {},
      stderr: (t) => {
        err += t;
      },
    };
    expect(await startCli(['--schema', NB, '--listen', 'ptcp:0', '--metrics', value], io)).toBe(2);
    expect(err).toMatch(message);
  });

  it('says that --metrics needs prom-client when it is missing', async () => {
    await expect(loadPromClient('prom-client-that-is-not-installed')).rejects.toThrow(
      /--metrics needs the prom-client package, which is not installed \(npm install prom-client\)/,
    );
  });

  it('is in the help text', async () => {
    let out = '';
    await startCli(['--help'], {
      stdout: (t) => {
        out += t;
      },
      stderr: () => {},
    });
    expect(out).toContain('--metrics=[IP]:PORT');
    expect(readFileSync(join(ROOT, 'src/server/program/cli.ts'), 'utf8')).toContain(
      '--metrics=[IP]:PORT',
    );
  });
});

describe('createServer({ metrics })', () => {
  it('counts sessions, monitors and transactions in-process', async () => {
    const promClient = requirePackage('prom-client') as typeof PromClient;
    const registry = new promClient.Registry();
    const server = await createServer({
      databases: [JSON.parse(readFileSync(NB, 'utf8')) as object],
      listen: ['ptcp:0:127.0.0.1'],
      metrics: prometheusMetrics(promClient, { registry }),
    });
    try {
      const conn = await connect(server.remotes[0]!);
      try {
        await transactions(conn);
        await conn.monitorCond(NB_DB, 'm', { Logical_Switch: { columns: ['name'] } });
        const s = parseMetrics(await registry.metrics());
        expect(sampleValue(s, 'ovnkit_server_sessions')).toBe(1);
        expect(sampleValue(s, 'ovnkit_server_monitors')).toBe(1);
        expect(series(s, 'ovnkit_server_transactions_total')).toEqual([
          'db=OVN_Northbound,outcome=committed 2',
          'db=OVN_Northbound,outcome=failed 1',
          'db=OVN_Northbound,outcome=unchanged 1',
        ]);
      } finally {
        conn.close();
      }
    } finally {
      await server.close();
    }
    // A closed server is no longer sampled.
    const s = parseMetrics(await registry.metrics());
    expect(sampleValue(s, 'ovnkit_server_sessions')).toBe(0);
  });
});
