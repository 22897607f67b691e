/**
 * Hostile input against `ovnkit-server` as a process, side by side with the
 * real ovsdb-server 3.1 given the same bytes: a message nested at the limit
 * (1,000 levels), just over it and far over it (100,000) in every position
 * a client controls, and strings holding U+0000 in a row value, a table
 * name, a method name, a member name, an id. Each attack is followed by an
 * `echo` on the same connection, so "still open" is decided by its reply.
 * ovnkit-server must decide as ovsdb-server does (drop the connection, or
 * answer), stay up, keep every other session working, and never store a
 * NUL string.
 */

import { readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { JsonStreamFramer } from '../../src/ovsdb/wire/framer.js';
import {
  AFTER,
  DEPTHS,
  freePort,
  LIMIT,
  nested,
  nestingOf,
  POSITIONS,
  type ProbeResult,
  probeSocket,
  probeWs,
  type ServerUnderTest,
  startServer,
  transactAsBystander,
} from './helpers.js';

let ovnkit: ServerUnderTest;
let ovsdb: ServerUnderTest;
/** A session of each server opened before any attack, with a monitor: it must outlive them all. */
let bystanders: { server: ServerUnderTest; conn: OvsdbConnection; updates: number }[];

/** ovnkit-server's WebSocket listener (ovsdb-server has none). */
let wsUrl: string;

beforeAll(async () => {
  const port = await freePort();
  wsUrl = `ws://127.0.0.1:${port}/`;
  [ovnkit, ovsdb] = await Promise.all([
    startServer('ovnkit-server', ['--listen', `ws:127.0.0.1:${port}`]),
    startServer('ovsdb-server'),
  ]);
  bystanders = [];
  for (const server of [ovnkit, ovsdb]) {
    const conn = await connect(server.remote);
    const b = { server, conn, updates: 0 };
    conn.on('update2', () => {
      b.updates++;
    });
    await conn.monitorCond('OVN_Northbound', 'bystander', {
      Logical_Switch: { columns: ['name'] },
    });
    bystanders.push(b);
  }
}, 60_000);

afterAll(async () => {
  for (const b of bystanders ?? []) b.conn.close();
  await Promise.all([ovnkit?.stop(), ovsdb?.stop()]);
});

/** What decides the verdict: closed or not, and how many replies came before the marker. */
function outcome(r: ProbeResult): { closed: boolean; replies: number } {
  return { closed: r.closed, replies: r.messages.length };
}

const CASES = POSITIONS.flatMap((p) => DEPTHS.map((depth) => [p.name, depth, p] as const));

describe('nesting at, just over and far over the limit in every position', () => {
  it.each(CASES)(
    '%s nested %i deep: ovnkit-server decides as ovsdb-server',
    async (_n, depth, p) => {
      const text = nested(p, depth);
      expect(nestingOf(text)).toBe(depth);
      const [mine, theirs] = await Promise.all([
        probeSocket(ovnkit.server.sock, [text]),
        probeSocket(ovsdb.server.sock, [text]),
      ]);
      expect(outcome(mine)).toEqual(outcome(theirs));
      if (depth > LIMIT) expect(mine.closed).toBe(true);
      expect(mine.failure).toBeUndefined();
      expect(ovnkit.alive()).toBe(true);
    },
  );

  it('at the limit an echo comes back whole, on both', async () => {
    const text = nested(POSITIONS[0]!, LIMIT);
    const params = text.slice('{"method":"echo","params":'.length, -',"id":"x"}'.length);
    for (const server of [ovnkit, ovsdb]) {
      const r = await probeSocket(server.server.sock, [text]);
      expect(r.closed).toBe(false);
      expect(r.texts).toHaveLength(1);
      expect(nestingOf(r.texts[0]!)).toBe(LIMIT);
      expect(r.texts[0]).toContain(`"result":${params}`);
    }
  });

  it('a monitor whose id nests to the limit gets its updates, its id as sent', async () => {
    const id = `${'['.repeat(LIMIT - 2)}"deep"${']'.repeat(LIMIT - 2)}`;
    const request = `{"method":"monitor_cond","params":["OVN_Northbound",${id},{"Logical_Switch":{"columns":["name"]}}],"id":"m"}`;
    expect(nestingOf(request)).toBe(LIMIT);
    for (const server of [ovnkit, ovsdb]) {
      const socket = netConnect(server.server.sock);
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const framer = new JsonStreamFramer();
      const seen: { text: string; value: unknown }[] = [];
      socket.on('data', (c: Buffer) => framer.pushFramesInto(c, seen));
      socket.write(request);
      const until = async (pred: () => boolean): Promise<void> => {
        for (let i = 0; i < 500 && !pred(); i++) await new Promise((r) => setTimeout(r, 10));
      };
      await until(() => seen.length >= 1);
      await transactAsBystander(server.remote, `${server.kind}-deep-monitor`);
      await until(() => seen.some((m) => (m.value as { method?: string }).method === 'update2'));
      const update = seen.find((m) => (m.value as { method?: string }).method === 'update2');
      expect(update?.text.startsWith(`{"id":null,"method":"update2","params":[${id},`)).toBe(true);
      expect(nestingOf(update!.text)).toBe(LIMIT);
      socket.destroy();
    }
  });

  it('ovnkit-server logs each over-limit message as a protocol error, and nothing as an internal failure', () => {
    const log = readFileSync(ovnkit.server.log, 'utf8');
    const dropped = log.match(/error parsing stream: message nesting deeper than 1000 levels/g);
    expect(dropped?.length ?? 0).toBeGreaterThanOrEqual(2 * POSITIONS.length);
    expect(log).not.toContain('failed to handle a message');
  });
});

/** Strings holding U+0000 (as the escape `\u0000`, the only way JSON can carry it). */
const NUL_CASES: readonly (readonly [string, readonly string[]])[] = [
  [
    'a row value',
    [
      '{"method":"transact","params":["OVN_Northbound",{"op":"insert","table":"Logical_Switch","row":{"name":"nul-row\\u0000x"}}],"id":"x"}',
    ],
  ],
  [
    'a table name',
    [
      '{"method":"transact","params":["OVN_Northbound",{"op":"select","table":"Logical\\u0000_Switch","where":[]}],"id":"x"}',
    ],
  ],
  ['a method name', ['{"method":"ec\\u0000ho","params":[],"id":"x"}']],
  ['a member name', ['{"method":"echo","params":[{"a\\u0000":1}],"id":"x"}']],
  ['an echo param', ['{"method":"echo","params":["\\u0000"],"id":"x"}']],
  ['a request id', ['{"method":"echo","params":[],"id":"x\\u0000"}']],
  [
    'a monitor id',
    [
      '{"method":"monitor_cond","params":["OVN_Northbound","m\\u0000",{"Logical_Switch":{}}],"id":"x"}',
    ],
  ],
  ['a lock name', ['{"method":"lock","params":["l\\u0000"],"id":"x"}']],
  [
    'a where value',
    [
      '{"method":"transact","params":["OVN_Northbound",{"op":"select","table":"Logical_Switch","where":[["name","==","\\u0000"]]}],"id":"x"}',
    ],
  ],
  // The escape split across two reads: the framer keeps its state between them.
  [
    'a row value, the escape split across two writes',
    [
      '{"method":"transact","params":["OVN_Northbound",{"op":"insert","table":"Logical_Switch","row":{"name":"nul-split\\',
      'u0000"}}],"id":"x"}',
    ],
  ],
];

describe('U+0000 in strings', () => {
  it.each(NUL_CASES)('in %s: both servers drop the connection', async (_what, chunks) => {
    const [mine, theirs] = await Promise.all([
      probeSocket(ovnkit.server.sock, chunks, 50),
      probeSocket(ovsdb.server.sock, chunks, 50),
    ]);
    expect(theirs.closed).toBe(true);
    expect(outcome(mine)).toEqual(outcome(theirs));
    expect(ovnkit.alive()).toBe(true);
  });

  it('an escaped backslash before "u0000" is no NUL: both store the 7 characters', async () => {
    const insert =
      '{"method":"transact","params":["OVN_Northbound",{"op":"insert","table":"Logical_Switch","row":{"name":"bs\\\\u0000"}}],"id":"x"}';
    for (const server of [ovnkit, ovsdb]) {
      const r = await probeSocket(server.server.sock, [insert]);
      expect(r.closed).toBe(false);
      expect(JSON.stringify(r.messages[0]?.['result'])).toMatch(/"uuid"/);
    }
  });

  it('a raw NUL byte inside a string is invalid JSON to both', async () => {
    const text = '{"method":"echo","params":["a\u0000b"],"id":"x"}';
    const [mine, theirs] = await Promise.all([
      probeSocket(ovnkit.server.sock, [text]),
      probeSocket(ovsdb.server.sock, [text]),
    ]);
    expect(theirs.closed).toBe(true);
    expect(mine.closed).toBe(true);
  });

  it('no server stored a string holding U+0000', async () => {
    const select =
      '{"method":"transact","params":["OVN_Northbound",{"op":"select","table":"Logical_Switch","where":[],"columns":["name"]}],"id":"sel"}';
    for (const server of [ovnkit, ovsdb]) {
      const r = await probeSocket(server.server.sock, [select]);
      // The probe's reader refuses U+0000 as every side does: no failure means none was sent.
      expect(r.failure).toBeUndefined();
      expect(r.closed).toBe(false);
      const result = r.messages[0]?.['result'] as { rows: { name: string }[] }[];
      const rows = result[0]!.rows;
      const names = rows.map((row) => row.name);
      expect(names).toContain('bs\\u0000');
      expect(names.some((n) => n.startsWith('nul-'))).toBe(false);
    }
  });
});

describe('over a WebSocket (message transport)', () => {
  it.each([
    ...DEPTHS.map(
      (d) => [`an echo nested ${d} deep`, nested(POSITIONS[0]!, d), d > LIMIT] as const,
    ),
    ['a string holding U+0000', '{"method":"echo","params":["a\\u0000"],"id":"x"}', true] as const,
  ])('%s: ovnkit-server decides as over a socket', async (_what, frame, drops) => {
    const r = await probeWs(wsUrl, [frame]);
    expect(r.closed).toBe(drops);
    if (!drops) expect(nestingOf(r.texts[0]!)).toBe(LIMIT);
    expect(ovnkit.alive()).toBe(true);
  });
});

describe('after every attack', () => {
  it('the server is up and the session opened before the attacks still works', async () => {
    expect(ovnkit.alive()).toBe(true);
    for (const b of bystanders) {
      expect(b.conn.isClosed).toBe(false);
      const before = b.updates;
      const r = await b.conn.transact('OVN_Northbound', [
        { op: 'insert', table: 'Logical_Switch', row: { name: `${b.server.kind}-bystander` } },
      ]);
      expect(r[0]?.uuid?.[0]).toBe('uuid');
      for (let i = 0; i < 300 && b.updates === before; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(b.updates).toBeGreaterThan(before);
    }
  });

  it('a new client connects and transacts', async () => {
    for (const server of [ovnkit, ovsdb]) {
      expect(await transactAsBystander(server.remote, `${server.kind}-after`)).toEqual([
        { name: `${server.kind}-after` },
      ]);
    }
    const r = await probeSocket(ovnkit.server.sock, [AFTER]);
    expect(r.closed).toBe(false);
  });
});
