/**
 * The client against a hostile server: a fake OVSDB server (a plain `net`
 * or `ws` server written here) that sends replies and notifications nested
 * at the limit, over it or far over it, strings holding U+0000, and
 * malformed updates (a row key that is no UUID, a row change or row that is
 * no object, a table the database does not have, a value of the wrong
 * type). Each is a ProtocolError (never a RangeError), the connection is
 * dropped, the client reconnects and resynchronises, and the replica never
 * holds a malformed row. And the client side refuses U+0000 itself: the
 * builder and the DSL throw a DatumError naming table.column before
 * anything is sent.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { connectDatabase } from '../../src/client/open.js';
import { NB, type NBTables } from '../../src/nb/generated/index.js';
import { connectNb, lsAdd, lspAdd } from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { ConnectionClosedError, DatumError, ProtocolError } from '../../src/ovsdb/wire/errors.js';
import { JsonStreamFramer } from '../../src/ovsdb/wire/framer.js';
import { compileRowCodec } from '../../src/rows/codec.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { TransactionBuilder } from '../../src/transactions/index.js';
import { TEST_MODEL } from '../client/helpers/fixtures.js';
import { TEST_SCHEMA } from '../helpers/server.js';
import { DEPTHS, LIMIT, nestingOf } from './helpers.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-hostile-client-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

let sockets = 0;

/** A JSON value nested so that a reply `{"id":…,"result":<it>,"error":null}` nests `total` levels. */
function deepResult(total: number): string {
  const n = total - 1;
  return `${'['.repeat(n)}"x"${']'.repeat(n)}`;
}

/** What the fake does with one request: the reply's text (or none), then more messages to send. */
type Answer = (method: string, params: unknown[], id: string) => string[];

/** A fake OVSDB server on a unix socket; `answer` scripts it per connection (numbered from 0). */
class FakeServer {
  readonly path = join(dir, `fake-${sockets++}.sock`);
  readonly connections: Socket[] = [];
  private server: Server | undefined;

  constructor(private readonly answer: (conn: number) => Answer) {}

  async start(): Promise<this> {
    this.server = createServer((socket) => {
      const n = this.connections.length;
      this.connections.push(socket);
      const answer = this.answer(n);
      const framer = new JsonStreamFramer();
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        for (const m of framer.push(chunk) as {
          method: string;
          params: unknown[];
          id: unknown;
        }[]) {
          if (typeof m.method !== 'string' || m.id === null || m.id === undefined) continue;
          for (const text of answer(m.method, m.params, JSON.stringify(m.id))) {
            if (!socket.destroyed) socket.write(text);
          }
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.path, resolve));
    return this;
  }

  get remote(): string {
    return `unix:${this.path}`;
  }

  async stop(): Promise<void> {
    for (const s of this.connections) s.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

const reply = (id: string, result: string): string =>
  `{"id":${id},"result":${result},"error":null}`;

describe('replies and notifications nested over the limit, or holding U+0000', () => {
  /** A fake whose `echo` replies are `result`, and that sends `before` first. */
  async function fakeEcho(result: string, before: string[] = []): Promise<FakeServer> {
    return new FakeServer(
      () => (method, params, id) =>
        method === 'echo' ? [...before, reply(id, result)] : [reply(id, JSON.stringify(params))],
    ).start();
  }

  it('a reply nested exactly to the limit is read whole', async () => {
    const fake = await fakeEcho(`[${deepResult(LIMIT - 1)}]`);
    const conn = await connect(fake.remote);
    const result = await conn.echo('x');
    expect(nestingOf(JSON.stringify(result))).toBe(LIMIT - 1);
    expect(conn.isClosed).toBe(false);
    conn.close();
    await fake.stop();
  });

  it.each(DEPTHS.filter((d) => d > LIMIT))(
    'a reply nested %i deep is a ProtocolError that closes the connection',
    async (depth) => {
      const fake = await fakeEcho(deepResult(depth));
      const conn = await connect(fake.remote);
      const e = await conn.echo('x').then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(ConnectionClosedError);
      expect((e as Error).cause).toBeInstanceOf(ProtocolError);
      expect(((e as Error).cause as Error).message).toMatch(/nesting deeper than 1000 levels/);
      const why = await conn.closed;
      expect(why).toBeInstanceOf(ProtocolError);
      expect(why).not.toBeInstanceOf(RangeError);
      await fake.stop();
    },
  );

  it('a notification nested 100,000 deep closes the connection with a ProtocolError', async () => {
    const notification = `{"id":null,"method":"update2","params":["m",${deepResult(100_000)}]}`;
    const fake = await fakeEcho('["x"]', [notification]);
    const conn = await connect(fake.remote);
    await conn.echo('x').catch(() => undefined);
    expect(await conn.closed).toBeInstanceOf(ProtocolError);
    await fake.stop();
  });

  it('a reply holding U+0000 is a ProtocolError', async () => {
    const fake = await fakeEcho('["a\\u0000b"]');
    const conn = await connect(fake.remote);
    await conn.echo('x').catch(() => undefined);
    const why = await conn.closed;
    expect(why).toBeInstanceOf(ProtocolError);
    expect(why?.message).toMatch(/null bytes not supported in quoted strings/);
    await fake.stop();
  });

  it.each([
    ['nested 1,001 deep', deepResult(LIMIT + 1), /Nesting deeper than 1000 levels/],
    ['nested 100,000 deep', deepResult(100_000), /Nesting deeper than 1000 levels/],
    ['holding U+0000', '["a\\u0000b"]', /null bytes not supported in quoted strings/],
  ])('over a WebSocket, a reply %s is a ProtocolError', async (_what, result, pattern) => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    wss.on('connection', (ws) => {
      ws.on('message', (data: Buffer) => {
        const m = JSON.parse(data.toString()) as { id: unknown };
        ws.send(reply(JSON.stringify(m.id), result));
      });
    });
    const { port } = wss.address() as { port: number };
    const conn = await connect(`ws://127.0.0.1:${port}/`);
    await conn.echo('x').catch(() => undefined);
    const why = await conn.closed;
    expect(why).toBeInstanceOf(ProtocolError);
    expect(why?.message).toMatch(pattern);
    for (const c of wss.clients) c.terminate();
    await new Promise((resolve) => wss.close(resolve));
  });
});

// ---- malformed updates -------------------------------------------------------

const GOOD = '11111111-1111-4111-8111-111111111111';
const EVIL = 'eeeeeeee-2222-4222-8222-22222222abcd';
const ZERO = '00000000-0000-0000-0000-000000000000';
const CLEAN_DUMP = `{"Item":{"${GOOD}":{"initial":{"name":"good","n":1}}}}`;

/**
 * A fake `Test` server: the handshake a client needs, and a full dump on
 * `monitor_cond_since` (`firstDump` on the first connection, a clean one
 * on later ones). The monitor id each connection asked for is kept in
 * `monitorIds`, for the test to send updates with.
 */
function fakeTest(firstDump: string): FakeServer & { monitorIds: string[] } {
  const monitorIds: string[] = [];
  const fake = new FakeServer((conn) => (method, params, id) => {
    switch (method) {
      case 'list_dbs':
        return [reply(id, '["Test"]')];
      case 'set_db_change_aware':
        return [reply(id, '{}')];
      case 'get_schema':
        return [reply(id, JSON.stringify(TEST_SCHEMA))];
      case 'monitor_cond_since':
        monitorIds[conn] = JSON.stringify(params[1]);
        return [reply(id, `[false,"${ZERO}",${conn === 0 ? firstDump : CLEAN_DUMP}]`)];
      case 'echo':
        return [reply(id, JSON.stringify(params))];
      default:
        return [`{"id":${id},"error":"unknown method"}`];
    }
  });
  return Object.assign(fake, { monitorIds });
}

const update3 = (monitorId: string, updates: string): string =>
  `{"id":null,"method":"update3","params":[${monitorId},"${EVIL}",${updates}]}`;

const MALFORMED: readonly (readonly [string, string, RegExp])[] = [
  [
    'a row key that is not a UUID',
    '{"Item":{"not-a-uuid":{"insert":{"name":"evil"}}}}',
    /malformed update for table Item, row "not-a-uuid": the row key is not a UUID/,
  ],
  [
    'a row key in upper case (not as ovsdb-server writes it)',
    `{"Item":{"${EVIL.toUpperCase()}":{"insert":{"name":"evil"}}}}`,
    /malformed update for table Item, row "EEEEEEEE-2222-4222-8222-22222222ABCD": the row key is not a UUID/,
  ],
  [
    'a row change that is not an object',
    `{"Item":{"${EVIL}":"evil"}}`,
    /table "Item", row "eeeeeeee-2222-4222-8222-22222222abcd": a row change must be an object/,
  ],
  [
    'an inserted row that is not an object',
    `{"Item":{"${EVIL}":{"insert":"evil"}}}`,
    /malformed update for table Item, row "e{8}-[-0-9a-f]+": "insert" must be an object/,
  ],
  [
    'two kinds of change at once',
    `{"Item":{"${EVIL}":{"insert":{"name":"evil"},"delete":null}}}`,
    /malformed update for table Item, row "e{8}-[-0-9a-f]+": a row change needs exactly one of/,
  ],
  [
    'a delete that is not null',
    `{"Item":{"${GOOD}":{"delete":{"name":"evil"}}}}`,
    /malformed update for table Item, row "1{8}-[-0-9a-f]+": "delete" must be null/,
  ],
  [
    'a value of the wrong type',
    `{"Item":{"${EVIL}":{"insert":{"name":"evil","n":"seven"}}}}`,
    /malformed update for table Item, row "e{8}-[-0-9a-f]+": Item\.n: expected an integer/,
  ],
  [
    'a table the database does not have',
    `{"Evil":{"${EVIL}":{"insert":{"name":"evil"}}}}`,
    /malformed update for table "Evil": database Test has no such table/,
  ],
];

/** Connect a client of the `Test` model to `fake`, recording its log and every row it was shown. */
function testClient(fake: FakeServer) {
  const log: { message: string; error: unknown }[] = [];
  const record = (message: string, data?: Record<string, unknown>) => {
    log.push({ message, error: data?.['error'] });
  };
  const client = connectDatabase({
    remotes: fake.remote,
    model: TEST_MODEL,
    backoff: { initialDelayMs: 10, maxDelayMs: 50 },
    logger: { error: record, warn: record, info: record },
  });
  const shown: unknown[] = [];
  client.on('Item', 'insert', (row) => {
    shown.push(row);
  });
  client.on('Item', 'update', (row) => {
    shown.push(row);
  });
  return { client, log, shown };
}

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

describe('malformed updates from the server', () => {
  it.each(MALFORMED)(
    'in an update3, %s: a ProtocolError naming table and key; the client reconnects, the replica never holds the row',
    async (_what, updates, pattern) => {
      const fake = fakeTest(CLEAN_DUMP);
      await fake.start();
      const { client, log, shown } = testClient(fake);
      await client.ready;
      expect(client.stats.connects).toBe(1);
      fake.connections[0]!.write(update3(fake.monitorIds[0]!, updates));
      await until('the reconnection', () => client.stats.connects === 2);
      const line = log.find((l) => pattern.test(l.message));
      expect(line, log.map((l) => l.message).join('\n')).toBeDefined();
      expect(fake.connections.length).toBe(2);
      expect(fake.connections[0]!.destroyed || fake.connections[0]!.readableEnded).toBe(true);
      expect(client.get('Item', EVIL as never)).toBeUndefined();
      expect([...client.rows('Item')].map((r) => r.name)).toEqual(['good']);
      expect(shown.some((r) => (r as { name?: string }).name === 'evil')).toBe(false);
      expect(client.status.state).toBe('connected');
      client.close();
      await fake.stop();
    },
  );

  it.each([
    ['a row key that is not a UUID', '{"Item":{"not-a-uuid":{"initial":{"name":"evil"}}}}'],
    ['a row that is not an object', `{"Item":{"${EVIL}":{"initial":[1]}}}`],
    ['a value of the wrong type', `{"Item":{"${EVIL}":{"initial":{"name":"evil","tags":7}}}}`],
    [
      'a value nested 100,000 deep',
      `{"Item":{"${EVIL}":{"initial":{"name":${deepResult(100_000)}}}}}`,
    ],
  ])('in the initial dump, %s: the session fails, the next one syncs', async (_what, dump) => {
    const { fake, client, log } = await syncAfterBadDump(dump);
    expect(log.some((l) => /malformed|nesting deeper than 1000/.test(l.message))).toBe(true);
    client.close();
    await fake.stop();
  });

  /**
   * A client of a fake server whose first dump is `dump` (which must fail):
   * once the second session synced, the replica holds the clean dump's row
   * only, and no row of `dump` was ever shown.
   */
  async function syncAfterBadDump(dump: string) {
    const fake = fakeTest(dump);
    await fake.start();
    const opened = testClient(fake);
    await opened.client.ready;
    await opened.client.drained();
    expect(fake.connections.length).toBe(2);
    expect(opened.client.stats.connects).toBe(1);
    expect([...opened.client.rows('Item')].map((r) => r.name)).toEqual(['good']);
    expect(opened.shown.map((r) => (r as { name: string }).name)).toEqual(['good']);
    return { fake, ...opened };
  }

  /** A dump of `Item` over 8 MiB (decoded as it arrives), with `evil` among 30,000 good rows. */
  function largeDump(evil: string): string {
    const rows: string[] = [];
    for (let i = 0; i < 30_000; i++) {
      const uuid = `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`;
      rows.push(`"${uuid}":{"initial":{"name":"pad-${i}-${'x'.repeat(300)}","n":${i}}}`);
      if (i === 15_000) rows.push(evil);
    }
    return `{"Item":{${rows.join(',')}}}`;
  }

  it.each([
    [
      'a row key that is not a UUID',
      '"not-a-uuid":{"initial":{"name":"evil"}}',
      /malformed update for table Item, row "not-a-uuid": the row key is not a UUID/,
    ],
    [
      'a value of the wrong type',
      `"${EVIL}":{"initial":{"name":"evil","n":"seven"}}`,
      /malformed update for table Item, row "e{8}-[-0-9a-f]+": Item\.n: expected an integer/,
    ],
    [
      'a row change that is not an object',
      `"${EVIL}":7`,
      /table "Item", row "eeeeeeee-2222-4222-8222-22222222abcd": a row change must be an object/,
    ],
  ])(
    'in a large initial dump (decoded as it arrives), %s: the same ProtocolError; no row of it was ever held',
    async (_what, evil, pattern) => {
      const dump = largeDump(evil);
      expect(dump.length).toBeGreaterThan(8 * 1024 * 1024);
      // The first dump is decoded whole before any of it is applied: none of its 30,000 good rows is shown.
      const { fake, client, log } = await syncAfterBadDump(dump);
      const line = log.find((l) => pattern.test(l.message));
      expect(line, log.map((l) => l.message).join('\n')).toBeDefined();
      client.close();
      await fake.stop();
    },
  );

  it('a large initial dump is held whole, every row as a small one decodes it', async () => {
    const dump = largeDump(`"${EVIL}":{"initial":{"name":"last","n":-1}}`);
    const fake = fakeTest(dump);
    await fake.start();
    const { client, shown } = testClient(fake);
    await client.ready;
    await client.drained();
    expect(fake.connections.length).toBe(1);
    expect(client.count('Item')).toBe(30_001);
    expect(shown).toHaveLength(30_001);
    expect(client.stats.initialRows).toBe(30_001);
    const wire = (JSON.parse(dump) as { Item: Record<string, { initial: Record<string, never> }> })
      .Item;
    const codec = compileRowCodec(TEST_MODEL.schema.tables['Item']!);
    for (const [uuid, change] of Object.entries(wire)) {
      expect(client.get('Item', uuid as never)).toEqual(codec.decodeRow(uuid, change.initial));
    }
    client.close();
    await fake.stop();
  });
});

// ---- U+0000 refused before sending -----------------------------------------------

describe('the client refuses U+0000 before anything is sent', () => {
  /** The DatumError `f` throws. */
  function datumError(f: () => unknown): DatumError {
    try {
      f();
    } catch (e) {
      if (e instanceof DatumError) return e;
      throw e;
    }
    throw new Error('no DatumError');
  }

  it.each([
    [
      'an inserted value',
      (t: TransactionBuilder<NBTables>) => t.insert('Logical_Switch', { name: 'sw\u0000' }),
      'Logical_Switch',
      'name',
    ],
    [
      'an updated value',
      (t: TransactionBuilder<NBTables>) =>
        t.update('Logical_Switch', [['name', '==', 'sw0']], { name: 'a\u0000b' }),
      'Logical_Switch',
      'name',
    ],
    [
      'a condition value',
      (t: TransactionBuilder<NBTables>) => t.delete('Logical_Switch', [['name', '==', '\u0000']]),
      'Logical_Switch',
      'name',
    ],
    [
      'a mutation value',
      (t: TransactionBuilder<NBTables>) =>
        t.mutate('Logical_Switch', [], [['other_config', 'insert', { k: 'v\u0000' }]]),
      'Logical_Switch',
      'other_config',
    ],
    [
      'a map key',
      (t: TransactionBuilder<NBTables>) =>
        t.insert('Logical_Switch', { name: 'sw', external_ids: { 'k\u0000': 'v' } }),
      'Logical_Switch',
      'external_ids',
    ],
  ] as const)(
    'in %s, the builder throws a DatumError naming table.column',
    (_what, build, table, column) => {
      const t = new TransactionBuilder(NB);
      const e = datumError(() => build(t as never));
      expect(e.table).toBe(table);
      expect(e.column).toBe(column);
      expect(e.message).toMatch(/U\+0000/);
      expect(t.size).toBe(0);
    },
  );

  describe('the DSL, on a client of a real ovsdb-server', () => {
    let server: OvsdbServerHandle;
    beforeAll(async () => {
      requireOvsdbServer();
      server = await startOvsdbServer({ schemaPath: 'schema/ovn-nb-7.18.0.ovsschema' });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('lspAdd with a name holding U+0000 is a DatumError; the connection is untouched', async () => {
      const nb = await connectNb({ remotes: server.unixRemote });
      try {
        await nb.transact((t) => lsAdd(t, 'sw0'));
        const e = await nb
          .transact((t) => lspAdd(t, 'sw0', 'a\u0000b'))
          .then(
            () => undefined,
            (err: unknown) => err,
          );
        expect(e).toBeInstanceOf(DatumError);
        expect((e as DatumError).table).toBe('Logical_Switch_Port');
        expect((e as DatumError).column).toBe('name');
        // Had it been sent, ovsdb-server would have dropped the connection.
        const { value } = await nb.transact((t) => lspAdd(t, 'sw0', 'ok'));
        expect(nb.client.get('Logical_Switch_Port', value)?.name).toBe('ok');
        expect(nb.client.stats.connects).toBe(1);
        expect(nb.client.stats.disconnects).toBe(0);
      } finally {
        await nb.close();
      }
    });
  });
});
