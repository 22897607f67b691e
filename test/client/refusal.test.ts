/**
 * Refusals are definite answers, not lost replies: a write through a
 * read-only bridge, an insert that ovsdb-server's role-based access control
 * forbids, a write on a read-only connection, and an `assert` of a lock the
 * session does not hold each raise a `TransactionRefusedError` naming who
 * refused and why (the transaction did not commit, and nothing waits for a
 * reconnection to find that out). And a reply that really is lost is
 * reported without contradicting itself.
 *
 * The real ovsdb-server only: RBAC and read-only connections come from its
 * `Connection` rows (`--remote=db:`), and the bridge stands in front of it.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import {
  connectDatabase,
  openDatabase,
  TransactionOutcomeUnknownError,
} from '../../src/client/index.js';
import * as root from '../../src/index.js';
import { NB } from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { defineModel } from '../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { TransactionError, TransactionRefusedError } from '../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import * as transactions from '../../src/transactions/index.js';
import { outcomeOf, TransactionOutcomeError } from '../../src/transactions/index.js';
import { sleep, TEST_SCHEMA, unique } from '../helpers/server.js';
import { TEST_MODEL } from './helpers/fixtures.js';

const NB_SCHEMA = 'schema/ovn-nb-7.18.0.ovsschema';
const SB_SCHEMA = 'test/fixtures/schemas/ovn-sb.ovsschema';
const SB = defineModel(parseSchema(JSON.parse(readFileSync(SB_SCHEMA, 'utf8'))));

/** The error `promise` rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('the refusal error is exported by every entry point', () => {
  it('root, ovnkit/client and ovnkit/transactions', async () => {
    const client = await import('../../src/client/index.js');
    expect(TransactionRefusedError).toBeTypeOf('function');
    expect(root.TransactionRefusedError).toBe(TransactionRefusedError);
    expect(client.TransactionRefusedError).toBe(TransactionRefusedError);
    expect(transactions.TransactionRefusedError).toBe(TransactionRefusedError);
  });
});

describe('a read-only bridge in front of ovsdb-server (NB)', () => {
  let server: OvsdbServerHandle;
  let bridge: Bridge;
  let writer: OvsdbConnection;

  beforeAll(async () => {
    requireOvsdbServer(true);
    server = await startOvsdbServer({ schemaPath: NB_SCHEMA });
    bridge = await startBridge({
      listen: 'ws://127.0.0.1:0/ovsdb',
      remote: server.unixRemote,
      noAuth: true,
      policy: { readOnly: true },
    });
    writer = await connect(server.unixRemote);
  });

  afterAll(async () => {
    writer?.close();
    await bridge?.close();
    await server?.stop();
  });

  it('a typed insert is refused by the bridge, with its reason, in one attempt', async () => {
    const db = await openDatabase({ remotes: bridge.url, model: NB });
    try {
      const name = unique('ro-sw');
      const started = Date.now();
      const e = await rejection(db.transact((tx) => tx.insert('Logical_Switch', { name })));
      expect(e).toBeInstanceOf(TransactionRefusedError);
      expect(e).toBeInstanceOf(TransactionError);
      expect(e).not.toBeInstanceOf(TransactionOutcomeError);
      const r = e as TransactionRefusedError;
      expect(r.refusedBy).toBe('bridge');
      expect(r.error).toBe('permission error');
      expect(r.details).toBe(
        'read-only bridge: transact operation 0 is "insert"; only select, wait and comment are allowed',
      );
      expect([r.opIndex, r.op, r.table]).toEqual([0, 'insert', 'Logical_Switch']);
      expect(r.message).toBe(
        'transaction refused by the bridge (operation 0: insert Logical_Switch): permission error: read-only bridge: transact operation 0 is "insert"; only select, wait and comment are allowed; it did not commit',
      );
      expect(r.message).not.toMatch(/no reply|may or may not|unknown/);
      expect(outcomeOf(e)).toBe('not committed');
      // A refusal is not a lost reply: no probe, no reconnection.
      expect(Date.now() - started).toBeLessThan(2000);
      expect(db.stats.connects).toBe(1);
      const [found] = await writer.transact(NB.name, [
        { op: 'select', table: 'Logical_Switch', where: [['name', '==', name]] },
      ]);
      expect(found).toEqual({ rows: [] });
      // Reading through the same bridge still works.
      const { value } = await db.transact((tx) => tx.select('Logical_Switch', { name }));
      expect(value).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it("the client's raw transact raises the same refusal", async () => {
    const client = connectDatabase({ remotes: bridge.url, model: NB });
    try {
      await client.ready;
      const e = await rejection(
        client.transactRaw([
          { op: 'select', table: 'Logical_Switch', where: [] },
          { op: 'delete', table: 'Logical_Switch', where: [] },
        ]),
      );
      expect(e).toBeInstanceOf(TransactionRefusedError);
      expect(e).not.toBeInstanceOf(TransactionOutcomeUnknownError);
      expect(e).toMatchObject({
        refusedBy: 'bridge',
        error: 'permission error',
        opIndex: 1,
        op: 'delete',
        table: 'Logical_Switch',
      });
    } finally {
      await client.close();
    }
  });

  it('a refusal of the whole request names no operation', async () => {
    const ro = await startBridge({
      listen: 'ws://127.0.0.1:0/ovsdb',
      remote: server.unixRemote,
      noAuth: true,
      policy: { allowMethods: ['list_dbs', 'get_schema'] },
    });
    const conn = await connect(ro.url);
    try {
      const e = await rejection(conn.transact(NB.name, [{ op: 'comment', comment: 'x' }]));
      expect(e).toBeInstanceOf(TransactionRefusedError);
      expect(e).toMatchObject({
        refusedBy: 'bridge',
        error: 'permission error',
        details: 'method "transact" is not allowed by this bridge',
        opIndex: -1,
      });
      expect((e as Error).message).toBe(
        'transaction refused by the bridge: permission error: method "transact" is not allowed by this bridge; it did not commit',
      );
    } finally {
      conn.close();
      await ro.close();
    }
  });
});

describe("ovsdb-server's own refusals (SB: RBAC and read-only connections)", () => {
  let server: OvsdbServerHandle;
  let rbacRemote: string;
  let readOnlyRemote: string;

  beforeAll(async () => {
    requireOvsdbServer(true);
    server = await startOvsdbServer({
      schemaPath: SB_SCHEMA,
      extraArgs: ['--remote=db:OVN_Southbound,SB_Global,connections'],
    });
    const rbacSock = join(server.dir, 'rbac.sock');
    const roSock = join(server.dir, 'ro.sock');
    rbacRemote = `unix:${rbacSock}`;
    readOnlyRemote = `unix:${roSock}`;
    const admin = await connect(server.unixRemote);
    try {
      await admin.transact('OVN_Southbound', [
        { op: 'insert', table: 'RBAC_Role', row: { name: 'ovn-controller' } },
        {
          op: 'insert',
          table: 'Connection',
          row: { target: `punix:${rbacSock}`, role: 'ovn-controller' },
          'uuid-name': 'rbac',
        },
        {
          op: 'insert',
          table: 'Connection',
          row: { target: `punix:${roSock}`, read_only: true },
          'uuid-name': 'ro',
        },
        {
          op: 'insert',
          table: 'SB_Global',
          row: {
            connections: [
              'set',
              [
                ['named-uuid', 'rbac'],
                ['named-uuid', 'ro'],
              ],
            ],
          },
        },
      ] as Operation[]);
    } finally {
      admin.close();
    }
    // The listeners open once the server reads the rows.
    for (const remote of [rbacRemote, readOnlyRemote]) {
      for (let i = 0; ; i++) {
        try {
          (await connect(remote)).close();
          break;
        } catch (e) {
          if (i > 100) throw e;
          await sleep(50);
        }
      }
    }
  });

  afterAll(() => server?.stop());

  it('RBAC: an insert the role may not make is a refusal by the server', async () => {
    const conn = await connect(rbacRemote);
    try {
      const e = await rejection(
        conn.transact('OVN_Southbound', [
          { op: 'insert', table: 'Address_Set', row: { name: unique('as') } },
        ]),
      );
      expect(e).toBeInstanceOf(TransactionRefusedError);
      const r = e as TransactionRefusedError;
      expect([r.refusedBy, r.error, r.opIndex, r.op, r.table]).toEqual([
        'server',
        'permission error',
        0,
        'insert',
        'Address_Set',
      ]);
      expect(r.details).toMatch(
        /^RBAC rules for client .* role "ovn-controller" prohibit row insertion into table "Address_Set"\.$/,
      );
      expect(r.results?.[0]).toEqual({ error: 'permission error', details: r.details });
    } finally {
      conn.close();
    }
  });

  it('RBAC through typed transactions of the database client', async () => {
    const db = await openDatabase({ remotes: rbacRemote, model: SB });
    try {
      const name = unique('as-typed');
      const e = await rejection(db.transact((tx) => tx.insert('Address_Set', { name })));
      expect(e).toBeInstanceOf(TransactionRefusedError);
      expect(e).toMatchObject({ refusedBy: 'server', error: 'permission error', opIndex: 0 });
      expect((e as Error).message).toMatch(
        /^transaction refused by the server \(operation 0: insert Address_Set\): permission error: RBAC rules .* prohibit row insertion into table "Address_Set"\.; it did not commit$/,
      );
      expect(outcomeOf(e)).toBe('not committed');
      expect(db.lookup('Address_Set', { name })).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it('a read-only connection refuses a write with "not allowed"', async () => {
    const conn = await connect(readOnlyRemote);
    try {
      const e = await rejection(
        conn.transact('OVN_Southbound', [
          { op: 'insert', table: 'Address_Set', row: { name: unique('as-ro') } },
        ]),
      );
      expect(e).toBeInstanceOf(TransactionRefusedError);
      expect(e).toMatchObject({
        refusedBy: 'server',
        error: 'not allowed',
        opIndex: 0,
        op: 'insert',
        table: 'Address_Set',
      });
      expect((e as TransactionRefusedError).details).toMatch(/read only/);
    } finally {
      conn.close();
    }
  });
});

describe('locks and lost replies (Test schema)', () => {
  let server: OvsdbServerHandle;

  beforeAll(async () => {
    requireOvsdbServer(true);
    server = await startOvsdbServer({ schema: TEST_SCHEMA });
  });

  afterAll(() => server?.stop());

  it('asserting a lock the session does not hold is a refusal ("not owner")', async () => {
    const db = await openDatabase({ remotes: server.unixRemote, model: TEST_MODEL });
    try {
      const e = await rejection(
        db.transact((tx) => {
          tx.assertLock('not_mine');
          tx.insert('Item', { name: unique('locked'), n: 1 });
        }),
      );
      expect(e).toBeInstanceOf(TransactionRefusedError);
      expect(e).toMatchObject({
        refusedBy: 'server',
        error: 'not owner',
        opIndex: 0,
        op: 'assert',
      });
      expect((e as TransactionRefusedError).details).toMatch(/not_mine/);
    } finally {
      await db.close();
    }
  });

  /** A `wait` the server holds until the connection goes. */
  const blockingWait = {
    op: 'wait',
    table: 'Item',
    where: [],
    columns: ['name'],
    until: '==',
    rows: [{ name: 'never' }],
  } as Operation;

  it('a lost reply of a raw transact: its outcome is unknown, and it says only that', async () => {
    const client = connectDatabase({
      remotes: server.unixRemote,
      model: TEST_MODEL,
      backoff: { initialDelayMs: 50, maxDelayMs: 200 },
    });
    try {
      await client.ready;
      const pending = rejection(
        client.transactRaw([
          blockingWait,
          { op: 'insert', table: 'Item', row: { name: unique('lost-raw'), n: 1 } } as Operation,
        ]),
      );
      await sleep(200);
      await server.kill();
      const e = await pending;
      expect(e).toBeInstanceOf(TransactionOutcomeUnknownError);
      const message = (e as Error).message;
      expect(message).toMatch(
        new RegExp(
          `^transaction sent to ${server.unixRemote} but no reply came \\(.+\\): its outcome is unknown \\(it may have committed\\)$`,
        ),
      );
      expect(message).not.toMatch(/not committed|may or may not/);
      expect((e as TransactionOutcomeUnknownError).lost).toMatch(
        new RegExp(`^no reply came from ${server.unixRemote} \\(.+\\)$`),
      );
    } finally {
      await server.restart();
      await client.close();
    }
  });

  it('a lost reply found not committed says so, without "may or may not"', async () => {
    const db = await openDatabase({
      remotes: server.unixRemote,
      model: TEST_MODEL,
      backoff: { initialDelayMs: 50, maxDelayMs: 200 },
    });
    try {
      const name = unique('lost-typed');
      const pending = rejection(
        db.transact((tx) => {
          tx.wait('Item', [], { columns: ['name'], until: '==', rows: [{ name: 'never' }] });
          tx.insert('Item', { name, n: 1 });
        }),
      );
      await sleep(200);
      await server.kill();
      await server.restart();
      const e = await pending;
      expect(e).toBeInstanceOf(TransactionOutcomeError);
      expect((e as TransactionOutcomeError).outcome).toBe('not committed');
      const message = (e as Error).message;
      expect(message).toMatch(
        new RegExp(
          `^transaction outcome not committed: no reply came from ${server.unixRemote} \\(.+\\); after reconnecting, the (replica|probe) shows that the inserted rows do not exist$`,
        ),
      );
      expect(message).not.toMatch(/may or may not|unknown/);
    } finally {
      await db.close();
    }
  });
});
