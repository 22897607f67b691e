/**
 * Hostile input against `ovnkit bridge` as a process, from both sides.
 *
 * Clients: frames nested at the limit, just over it and far over it in
 * every position, and strings holding U+0000, through a bridge in front of
 * a real `ovnkit-server` process (and a read-only bridge): at the limit the
 * frame is forwarded and answered as the server answers it directly; over
 * it, or with U+0000, the client's connection is closed (1007) and the
 * frame never reaches the server.
 *
 * The upstream server: a fake OVSDB server (a plain `net` server here)
 * answers `echo` with replies nested at the limit (forwarded intact), over
 * it, or holding U+0000: the bridge closes that client (1011) and serves the
 * others.
 *
 * Through it all the bridge stays up, and a client connected before the
 * attacks and a new one both transact.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { JsonStreamFramer } from '../../src/ovsdb/wire/framer.js';
import {
  type BridgeProcess,
  DEPTHS,
  LIMIT,
  nested,
  nestingOf,
  POSITIONS,
  probeSocket,
  probeWs,
  type ServerUnderTest,
  startBridgeProcess,
  startServer,
  transactAsBystander,
} from './helpers.js';

let server: ServerUnderTest;
let bridge: BridgeProcess;
let readOnly: BridgeProcess;
let fakeDir: string;
let fake: Server;
const fakeSockets = new Set<Socket>();
let bystander: OvsdbConnection;
let bystanderUpdates = 0;

/**
 * A hostile OVSDB server: `echo` with `deep-<n>` is answered by a reply that
 * nests `n` levels, `nul` by one holding U+0000; anything else as a server
 * would.
 */
function startFake(path: string): Promise<Server> {
  const s = createServer((socket) => {
    fakeSockets.add(socket);
    socket.on('close', () => fakeSockets.delete(socket));
    socket.on('error', () => undefined);
    const framer = new JsonStreamFramer();
    socket.on('data', (chunk: Buffer) => {
      for (const m of framer.push(chunk) as {
        method?: string;
        params?: unknown[];
        id?: unknown;
      }[]) {
        const id = JSON.stringify(m.id ?? null);
        const what = m.method === 'echo' ? m.params?.[0] : undefined;
        let result: string;
        if (typeof what === 'string' && what.startsWith('deep-')) {
          const n = Number(what.slice(5)) - 1; // the reply object is one level
          result = `${'['.repeat(n)}"x"${']'.repeat(n)}`;
        } else if (what === 'nul') {
          result = '["a\\u0000b"]';
        } else if (m.method === 'list_dbs') {
          result = '["Test"]';
        } else {
          result = JSON.stringify(m.params ?? []);
        }
        socket.write(`{"id":${id},"result":${result},"error":null}`);
      }
    });
  });
  return new Promise((resolve) => s.listen(path, () => resolve(s)));
}

beforeAll(async () => {
  fakeDir = await mkdtemp(join(tmpdir(), 'ovnkit-hostile-fake-'));
  fake = await startFake(join(fakeDir, 'fake.sock'));
  server = await startServer('ovnkit-server');
  [bridge, readOnly] = await Promise.all([
    startBridgeProcess(server.remote),
    startBridgeProcess(`unix:${join(fakeDir, 'fake.sock')}`, ['--read-only']),
  ]);
  bystander = await connect(bridge.url);
  bystander.on('update2', () => {
    bystanderUpdates++;
  });
  await bystander.monitorCond('OVN_Northbound', 'bystander', {
    Logical_Switch: { columns: ['name'] },
  });
}, 60_000);

afterAll(async () => {
  bystander?.close();
  await Promise.all([bridge?.stop(), readOnly?.stop()]);
  await server?.stop();
  for (const s of fakeSockets) s.destroy();
  await new Promise((resolve) => (fake ? fake.close(resolve) : resolve(undefined)));
  if (fakeDir) await rm(fakeDir, { recursive: true, force: true });
});

const CASES = POSITIONS.flatMap((p) => DEPTHS.map((depth) => [p.name, depth, p] as const));

describe('client frames nested at, just over and far over the limit', () => {
  it.each(CASES)('%s nested %i deep', async (_n, depth, p) => {
    const text = nested(p, depth);
    const r = await probeWs(bridge.url, [text]);
    if (depth > LIMIT) {
      expect(r.closed).toBe(true);
      expect(r.code).toBe(1007);
      expect(r.reason).toMatch(/^invalid JSON: Nesting deeper than 1000 levels/);
    } else {
      // Forwarded: the client sees what the server answers directly.
      const direct = await probeSocket(server.server.sock, [text]);
      expect(r.closed).toBe(direct.closed);
      expect(r.messages.length).toBe(direct.messages.length);
      if (!r.closed) expect(r.texts).toEqual(direct.texts);
    }
    expect(bridge.alive()).toBe(true);
  });

  it('a read-only bridge closes over-limit frames the same way', async () => {
    for (const depth of DEPTHS.filter((d) => d > LIMIT)) {
      for (const p of POSITIONS.slice(0, 4)) {
        const r = await probeWs(readOnly.url, [nested(p, depth)]);
        expect(r.code).toBe(1007);
        expect(r.reason).toMatch(/Nesting deeper than 1000 levels/);
      }
    }
    expect(readOnly.alive()).toBe(true);
  });
});

describe('client frames holding U+0000', () => {
  it.each([
    [
      'a row value',
      '{"method":"transact","params":["OVN_Northbound",{"op":"insert","table":"Logical_Switch","row":{"name":"nul\\u0000"}}],"id":"x"}',
    ],
    [
      'a table name',
      '{"method":"transact","params":["OVN_Northbound",{"op":"select","table":"Logical\\u0000_Switch","where":[]}],"id":"x"}',
    ],
    ['a method name', '{"method":"ec\\u0000ho","params":[],"id":"x"}'],
    ['an id', '{"method":"echo","params":[],"id":"\\u0000"}'],
  ])('in %s: closed with 1007, never forwarded', async (_what, frame) => {
    for (const b of [bridge, readOnly]) {
      const r = await probeWs(b.url, [frame]);
      expect(r.code).toBe(1007);
      expect(r.reason).toMatch(/^invalid JSON: null bytes not supported in quoted strings/);
      expect(r.messages).toEqual([]);
    }
  });
});

describe('server messages nested over the limit or holding U+0000', () => {
  it('a reply nested exactly to the limit is forwarded intact', async () => {
    const r = await probeWs(readOnly.url, [`{"method":"echo","params":["deep-${LIMIT}"],"id":1}`]);
    expect(r.closed).toBe(false);
    expect(r.texts).toHaveLength(1);
    expect(nestingOf(r.texts[0]!)).toBe(LIMIT);
  });

  it.each([...DEPTHS.filter((d) => d > LIMIT).map((d) => `deep-${d}`), 'nul'])(
    'a reply to "echo %s" closes that client with 1011; the others go on',
    async (what) => {
      const other = await connect(readOnly.url);
      const r = await probeWs(readOnly.url, [`{"method":"echo","params":["${what}"],"id":1}`]);
      expect(r.closed).toBe(true);
      expect(r.code).toBe(1011);
      expect(r.reason).toBe('invalid data from the OVSDB server');
      expect(r.messages).toEqual([]);
      expect(await other.echo('still here')).toEqual(['still here']);
      other.close();
      expect(readOnly.alive()).toBe(true);
    },
  );

  it('the bridge logs why', () => {
    const log = readOnly.log();
    expect(log).toMatch(
      /invalid data from the OVSDB server: message nesting deeper than 1000 levels/,
    );
    expect(log).toMatch(
      /invalid data from the OVSDB server: null bytes not supported in quoted strings/,
    );
  });
});

describe('after every attack', () => {
  it('no over-limit or NUL frame reached the server', async () => {
    const { readFileSync } = await import('node:fs');
    const log = readFileSync(server.server.log, 'utf8');
    expect(log).not.toMatch(/nesting deeper than|null bytes not supported/);
  });

  it('both bridges are up; the client connected before the attacks and a new one transact', async () => {
    expect(bridge.alive()).toBe(true);
    expect(readOnly.alive()).toBe(true);
    expect(bystander.isClosed).toBe(false);
    const before = bystanderUpdates;
    const r = await bystander.transact('OVN_Northbound', [
      { op: 'insert', table: 'Logical_Switch', row: { name: 'bridge-bystander' } },
    ]);
    expect(r[0]?.uuid?.[0]).toBe('uuid');
    for (let i = 0; i < 300 && bystanderUpdates === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(bystanderUpdates).toBeGreaterThan(before);
    expect(await transactAsBystander(bridge.url, 'bridge-after')).toEqual([
      { name: 'bridge-after' },
    ]);
    const other = await connect(readOnly.url);
    expect(await other.echo('fine')).toEqual(['fine']);
    other.close();
  });
});
