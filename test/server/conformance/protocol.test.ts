/**
 * Conformance of the JSON-RPC layer: scripted conversations of up to three
 * sessions (requests, notifications, raw bytes, closes) replayed on a real
 * ovsdb-server 3.1 and on the in-memory server. After every step each
 * session is synchronized with an `echo` round trip and everything it
 * received is recorded; the normalized transcripts must be equal, including
 * every error object (`error`, `details`, `syntax`), which session got which
 * notification, and which connections were dropped.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZERO_UUID } from '../../../src/ovsdb/values/uuid.js';
import { type ServerKind, startTestServer, type TestServerHandle } from '../../helpers/servers.js';
import { TEST_SCHEMA_PATH } from '../harness.js';
import { loadSchemaFile } from './harness.js';
import { TranscriptNormalizer } from './normalize.js';
import { type Message, WireSession } from './wire-session.js';

/** One step of a conversation. */
type Step =
  | { readonly s: number; readonly req: string; readonly params: unknown[]; readonly id?: unknown }
  | { readonly s: number; readonly note: string; readonly params: unknown[] }
  | { readonly s: number; readonly raw: string }
  | { readonly s: number; readonly close: true }
  | { readonly appctl: readonly string[] }
  | { readonly sleep: number };

interface Scenario {
  readonly name: string;
  readonly sessions: number;
  readonly steps: readonly Step[];
}

const schema = loadSchemaFile(TEST_SCHEMA_PATH);
const DB = schema.name;

const servers: Partial<Record<ServerKind, TestServerHandle>> = {};

beforeAll(async () => {
  const [real, memory] = await Promise.all([
    startTestServer('ovsdb-server', { schemaPath: TEST_SCHEMA_PATH }),
    startTestServer('memory', { schemaPath: TEST_SCHEMA_PATH }),
  ]);
  servers['ovsdb-server'] = real;
  servers.memory = memory;
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s?.stop()));
});

async function run(kind: ServerKind, scenario: Scenario): Promise<unknown[]> {
  const handle = servers[kind] as TestServerHandle;
  const reset = await WireSession.open(handle.unixRemote);
  await reset.request('transact', [
    DB,
    ...Object.keys(schema.tables).map((table) => ({ op: 'delete', table, where: [] })),
  ]);
  reset.close();
  const sessions = await Promise.all(
    Array.from({ length: scenario.sessions }, () => WireSession.open(handle.unixRemote)),
  );
  const norm = new TranscriptNormalizer();
  const requests = sessions.map(() => new Map<string, { method: string; params: unknown[] }>());
  const transcript: unknown[] = [];
  let nextId = 1;
  try {
    for (const step of scenario.steps) {
      if ('sleep' in step) {
        await new Promise((r) => setTimeout(r, step.sleep));
      } else if ('appctl' in step) {
        const args = step.appctl.map((a) => (a === '$dbPath' ? handle.dbPath : a));
        await handle.appctl(...args);
        await new Promise((r) => setTimeout(r, 100));
      } else {
        const s = sessions[step.s] as WireSession;
        if ('req' in step) {
          const id = step.id ?? nextId++;
          requests[step.s]?.set(JSON.stringify(id), { method: step.req, params: step.params });
          s.send({ method: step.req, params: step.params, id });
        } else if ('note' in step) {
          s.send({ method: step.note, params: step.params, id: null });
        } else if ('raw' in step) {
          s.writeRaw(step.raw);
        } else {
          s.close();
        }
      }
      // Let a dropped connection be noticed before synchronizing.
      if ('raw' in step || 'close' in step) await new Promise((r) => setTimeout(r, 50));
      // Synchronize the session that acted first (so that its request has
      // been handled), then the others; normalize in session order.
      const acting = 's' in step ? step.s : 0;
      const order = [acting, ...sessions.keys()].filter((v, k, a) => a.indexOf(v) === k);
      const received: Message[][] = new Array(sessions.length);
      for (const i of order) received[i] = await (sessions[i] as WireSession).sync();
      const record = sessions.map((s, i) => ({
        session: i,
        closed: s.closed,
        messages: (received[i] ?? []).map((m) =>
          norm.message(
            m,
            typeof m.method === 'string' ? undefined : requests[i]?.get(JSON.stringify(m.id)),
          ),
        ),
      }));
      transcript.push(record);
    }
  } finally {
    for (const s of sessions) s.close();
  }
  return transcript;
}

const wait = (name: string, timeout?: number) => ({
  op: 'wait',
  table: 'Root',
  where: [['name', '==', name]],
  columns: ['i'],
  until: '==',
  rows: [{ i: 5 }],
  ...(timeout === undefined ? {} : { timeout }),
});
const insertRoot = (name: string, extra: Record<string, unknown> = {}) => ({
  op: 'insert',
  table: 'Root',
  row: { name, sset: 'q', ...extra },
});

const scenarios: Scenario[] = [
  {
    name: 'plain methods and their parameter errors',
    sessions: 1,
    steps: [
      { s: 0, req: 'list_dbs', params: [] },
      { s: 0, req: 'list_dbs', params: [1, 'x'] },
      { s: 0, req: 'get_schema', params: [DB] },
      { s: 0, req: 'get_schema', params: ['_Server'] },
      { s: 0, req: 'get_schema', params: [DB, 'extra'] },
      { s: 0, req: 'get_schema', params: ['Nope'] },
      { s: 0, req: 'get_schema', params: [] },
      { s: 0, req: 'get_schema', params: [1] },
      { s: 0, req: 'get_server_id', params: [] },
      { s: 0, req: 'get_server_id', params: [1] },
      { s: 0, req: 'echo', params: [1, 'two', { three: [3.5, null, true] }] },
      { s: 0, req: 'echo', params: [], id: 'echo' },
      { s: 0, req: 'echo', params: ['x'], id: [1, { a: 'b' }] },
      { s: 0, req: 'no_such_method', params: [] },
      { s: 0, req: 'cancel', params: [1] },
      { s: 0, req: 'set_db_change_aware', params: [] },
      { s: 0, req: 'set_db_change_aware', params: ['yes'] },
      { s: 0, req: 'set_db_change_aware', params: [true, false] },
      { s: 0, req: 'set_db_change_aware', params: [false] },
      { s: 0, req: 'transact', params: [] },
      { s: 0, req: 'transact', params: ['Nope', { op: 'comment', comment: 'x' }] },
      { s: 0, req: 'transact', params: [DB] },
      { s: 0, req: 'transact', params: [DB, 'not an op', { op: 'comment', comment: 'x' }] },
      { s: 0, req: 'transact', params: [7] },
    ],
  },
  {
    name: '_Server: rows, schema text, monitors, writes refused',
    sessions: 1,
    steps: [
      {
        s: 0,
        req: 'transact',
        params: ['_Server', { op: 'select', table: 'Database', where: [], sort: ['name'] }],
      },
      {
        s: 0,
        req: 'monitor',
        params: [
          '_Server',
          'sv1',
          { Database: { columns: ['name', 'model', 'schema', 'cid', 'index'] } },
        ],
      },
      {
        s: 0,
        req: 'monitor_cond',
        params: ['_Server', 'sv2', { Database: { where: [['name', '==', DB]] } }],
      },
      {
        s: 0,
        req: 'monitor_cond_since',
        params: [
          '_Server',
          'sv3',
          { Database: { columns: ['connected', 'leader', 'sid'] } },
          ZERO_UUID,
        ],
      },
      {
        s: 0,
        req: 'transact',
        params: ['_Server', { op: 'insert', table: 'Database', row: { name: 'x' } }],
      },
      {
        s: 0,
        req: 'transact',
        params: [
          '_Server',
          { op: 'wait', table: 'Database', where: [], until: '!=', rows: [], timeout: 0 },
        ],
      },
    ],
  },
  {
    name: 'monitor request errors',
    sessions: 1,
    steps: [
      { s: 0, req: 'monitor', params: [DB, 'm', { Limited: {} }] },
      { s: 0, req: 'monitor', params: [DB, 'm', { Limited: {} }] },
      { s: 0, req: 'monitor_cond', params: [DB, 'm', { Limited: {} }] },
      { s: 0, req: 'monitor', params: [DB, 'x', { Nope: {} }] },
      { s: 0, req: 'monitor', params: [DB, 'x', { Limited: { columns: ['zz'] } }] },
      {
        s: 0,
        req: 'monitor',
        params: [DB, 'x', { Limited: [{ columns: ['a'] }, { columns: ['a'] }] }],
      },
      { s: 0, req: 'monitor', params: [DB, 'x', { Root: [{}, {}] }] },
      { s: 0, req: 'monitor_cond', params: [DB, 'x', { Limited: { where: [['zz', '==', 1]] } }] },
      { s: 0, req: 'monitor_cond', params: [DB, 'x', { Limited: { where: [['a', 'like', 1]] } }] },
      { s: 0, req: 'monitor_cond', params: [DB, 'x', { Limited: { where: [['b', '<', 'x']] } }] },
      {
        s: 0,
        req: 'monitor_cond',
        params: [DB, 'x', { Root: { where: [['u', '==', ['named-uuid', 'n']]] } }],
      },
      { s: 0, req: 'monitor_cond', params: [DB, 'x', { Root: { where: 'all' } }] },
      { s: 0, req: 'monitor', params: [DB, 'x', { Limited: { where: [] } }] },
      { s: 0, req: 'monitor', params: [DB, 'x', { Limited: { select: { initial: 1 } } }] },
      {
        s: 0,
        req: 'monitor',
        params: [DB, 'x', { Limited: { select: { initial: true, sometimes: true } } }],
      },
      { s: 0, req: 'monitor', params: [DB, 'x', { Limited: { extra: 1, other: 2 } }] },
      { s: 0, req: 'monitor', params: [DB, 'x', []] },
      { s: 0, req: 'monitor', params: [DB, 'x', { Limited: 'x' }] },
      { s: 0, req: 'monitor', params: [DB, 'x', { Limited: { columns: 'x' } }] },
      { s: 0, req: 'monitor', params: [DB, 'x', { Limited: { columns: [1] } }] },
      {
        s: 0,
        req: 'monitor',
        params: [
          DB,
          'x',
          {
            Root: { columns: ['zz'] },
            Child: { columns: ['yy'] },
            Weak: { columns: ['ww'] },
            Limited: { columns: ['qq'] },
          },
        ],
      },
      { s: 0, req: 'monitor_cond', params: [DB, 'x'] },
      { s: 0, req: 'monitor_cond', params: [DB, 'x', {}, 1] },
      { s: 0, req: 'monitor', params: [DB, 'x4', {}, 1] },
      { s: 0, req: 'monitor', params: ['Nope', 'x', {}] },
      { s: 0, req: 'monitor', params: [] },
      { s: 0, req: 'monitor', params: [1, 2, 3] },
      { s: 0, req: 'monitor_cond_since', params: [DB, 'x', {}, 'xx'] },
      { s: 0, req: 'monitor_cond_since', params: [DB, 'x', {}, null] },
      { s: 0, req: 'monitor_cond_since', params: [DB, 'x', { Nope: {} }, 'xx'] },
      { s: 0, req: 'monitor_cond_since', params: [DB, 'x', {}] },
      {
        s: 0,
        req: 'monitor_cond',
        params: [DB, { complex: ['id'] }, { Limited: { columns: [] } }],
      },
      { s: 0, req: 'monitor_cond', params: [DB, { complex: ['id'] }, { Limited: {} }] },
    ],
  },
  {
    name: 'initial contents: select flags, columns, where (ORed, optional values, constants)',
    sessions: 1,
    steps: [
      {
        s: 0,
        req: 'transact',
        params: [
          DB,
          { op: 'insert', table: 'Limited', row: { a: 1, b: 'x' } },
          { op: 'insert', table: 'Limited', row: { a: 2, b: 'y', c: 5 } },
          insertRoot('r1', {
            i: 7,
            iset: ['set', [1, 2]],
            smap: ['map', [['k', 'v']]],
            e: 'alpha',
          }),
          insertRoot('r2', { oi: 0, u: ['uuid', '0b8b6bd6-1cfa-4c11-b5a8-c3c4a7f4b1a1'] }),
        ],
      },
      {
        s: 0,
        req: 'monitor',
        params: [DB, 'v1', { Limited: {}, Root: { columns: ['name', 'i', 'u'] } }],
      },
      { s: 0, req: 'monitor', params: [DB, 'noinit', { Limited: { select: { initial: false } } }] },
      { s: 0, req: 'monitor_cond', params: [DB, 'all', { Root: {}, Limited: { columns: [] } }] },
      {
        s: 0,
        req: 'monitor_cond',
        params: [DB, 'uuid', { Root: { columns: ['_uuid', '_version', 'name'] } }],
      },
      ...(
        [
          [false, false, true],
          [false, true],
          [true, false, false],
          [false],
          [['c', '!=', ['set', []]]],
          [['c', '==', ['set', []]]],
          [['c', '<', 10]],
          [['c', 'includes', ['set', []]]],
          [['c', 'excludes', ['set', []]]],
          [['c', 'excludes', 5]],
          [false, ['a', '==', 1]],
          [false, false, true, ['a', '>', 0]],
          [
            ['c', '==', ['set', []]],
            ['a', '>', 5],
          ],
          [
            ['a', '==', 1],
            ['b', '==', 'y'],
          ],
        ] as unknown[][]
      ).map(
        (where, i): Step => ({
          s: 0,
          req: 'monitor_cond',
          params: [DB, `w${i}`, { Limited: { columns: ['a', 'b', 'c'], where } }],
        }),
      ),
      {
        s: 0,
        req: 'monitor_cond',
        params: [
          DB,
          'rootw',
          {
            Root: {
              columns: ['name'],
              where: [
                ['iset', 'includes', 2],
                ['smap', '==', ['map', [['k', 'v']]]],
                ['oi', '<=', 0],
                ['e', '!=', 'alpha'],
              ],
            },
          },
        ],
      },
      {
        s: 0,
        req: 'monitor_cond',
        params: [
          DB,
          'multi',
          {
            Root: [
              { columns: ['name'], where: [['i', '==', 7]], select: { initial: false } },
              { columns: ['i', 'oi'], where: [['name', '==', 'r2']] },
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'updates: a change to unmonitored columns only, rows entering and leaving the condition',
    sessions: 2,
    steps: [
      {
        s: 0,
        req: 'monitor_cond',
        params: [
          DB,
          'cond',
          {
            Limited: {
              columns: ['a'],
              where: [
                ['b', '==', 'x'],
                ['c', '==', 7],
              ],
            },
          },
        ],
      },
      {
        s: 0,
        req: 'monitor',
        params: [DB, 'v1', { Limited: { columns: ['a', 'b'], select: { delete: false } } }],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'insert', table: 'Limited', row: { a: 1, b: 'x' } }],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Limited', where: [], row: { c: 5 } }],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Limited', where: [], row: { b: 'y' } }],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Limited', where: [], row: { c: 7 } }],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Limited', where: [], row: { a: 3, c: 8 } }],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Limited', where: [], row: { b: 'x', a: 4 } }],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Limited', where: [], row: { c: ['set', []] } }],
      },
      { s: 1, req: 'transact', params: [DB, { op: 'delete', table: 'Limited', where: [] }] },
    ],
  },
  {
    name: 'monitor_cond_change and monitor_cancel',
    sessions: 2,
    steps: [
      {
        s: 1,
        req: 'transact',
        params: [
          DB,
          { op: 'insert', table: 'Limited', row: { a: 1, b: 'x' } },
          { op: 'insert', table: 'Limited', row: { a: 2, b: 'y', c: 5 } },
        ],
      },
      {
        s: 0,
        req: 'monitor_cond',
        params: [DB, 'm1', { Limited: { columns: ['a', 'b'], where: [['a', '==', 1]] } }],
      },
      { s: 0, req: 'monitor', params: [DB, 'old', { Limited: { columns: ['a'] } }] },
      {
        s: 0,
        req: 'monitor_cond_since',
        params: [DB, 'm3', { Limited: { columns: ['b'], where: [false] } }, ZERO_UUID],
      },
      {
        s: 0,
        req: 'monitor_cond_change',
        params: ['m1', 'm2', { Limited: [{ where: [['a', '==', 2]] }] }],
      },
      { s: 0, req: 'monitor_cond_change', params: ['m1', 'm2', { Limited: [{ where: [] }] }] },
      {
        s: 0,
        req: 'monitor_cond_change',
        params: [
          'm2',
          'm2',
          {
            Limited: [
              {
                where: [
                  ['c', '==', ['set', []]],
                  ['a', '==', 2],
                ],
              },
            ],
          },
        ],
      },
      {
        s: 0,
        req: 'monitor_cond_change',
        params: [
          'm2',
          'm2',
          {
            Limited: [
              {
                where: [
                  ['a', '==', 2],
                  ['c', '==', ['set', []]],
                ],
              },
            ],
          },
        ],
      },
      { s: 0, req: 'monitor_cond_change', params: ['m3', 'm3', { Limited: [{ where: [true] }] }] },
      {
        s: 0,
        req: 'monitor_cond_change',
        params: ['old', 'old2', { Limited: [{ where: [['zz', '==', 1]] }] }],
      },
      { s: 0, req: 'monitor_cond_change', params: ['nope', 'x', {}] },
      { s: 0, req: 'monitor_cond_change', params: ['m2'] },
      { s: 0, req: 'monitor_cond_change', params: ['m2', 'm3', {}] },
      { s: 0, req: 'monitor_cond_change', params: ['m2', 'm2', []] },
      { s: 0, req: 'monitor_cond_change', params: ['m2', 'm2', { Limited: [{ columns: ['a'] }] }] },
      { s: 0, req: 'monitor_cond_change', params: ['m2', 'm2', { Limited: { where: [] } }] },
      { s: 0, req: 'monitor_cond_change', params: ['m2', 'm2', { Root: [{ where: [] }] }] },
      { s: 0, req: 'monitor_cond_change', params: ['m2', 'm2', { Nope: [{ where: [] }] }] },
      {
        s: 0,
        req: 'monitor_cond_change',
        params: ['m2', 'm2', { Limited: [{ where: [['zz', '==', 1]] }] }],
      },
      {
        s: 0,
        req: 'monitor_cond_change',
        params: ['m2', 'm2', { Limited: [{ where: [], other: 1 }] }],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Limited', where: [['a', '==', 1]], row: { c: 9 } }],
      },
      { s: 0, req: 'monitor_cancel', params: ['m2'] },
      { s: 0, req: 'monitor_cancel', params: ['m2'] },
      { s: 0, req: 'monitor_cancel', params: [] },
      { s: 0, req: 'monitor_cancel', params: ['old2', 'x'] },
      { s: 1, req: 'transact', params: [DB, { op: 'delete', table: 'Limited', where: [] }] },
    ],
  },
  {
    name: 'updates arrive before the reply and on every monitoring session',
    sessions: 3,
    steps: [
      { s: 0, req: 'monitor', params: [DB, 'a', { Root: { columns: ['name', 'i'] } }] },
      { s: 1, req: 'monitor_cond', params: [DB, 'b', { Root: { columns: ['i', 'smap'] } }] },
      {
        s: 2,
        req: 'monitor_cond_since',
        params: [DB, 'c', { Root: { columns: ['name', 'iset'] } }, ZERO_UUID],
      },
      { s: 0, req: 'transact', params: [DB, insertRoot('x', { i: 1 }), insertRoot('y', { i: 2 })] },
      {
        s: 1,
        req: 'transact',
        params: [
          DB,
          {
            op: 'mutate',
            table: 'Root',
            where: [],
            mutations: [
              ['i', '+=', 3],
              ['smap', 'insert', ['map', [['k', 'v']]]],
            ],
          },
        ],
      },
      {
        s: 2,
        req: 'transact',
        params: [
          DB,
          {
            op: 'update',
            table: 'Root',
            where: [['name', '==', 'x']],
            row: { iset: ['set', [1, 2]] },
          },
        ],
      },
      {
        s: 2,
        req: 'transact',
        params: [
          DB,
          {
            op: 'update',
            table: 'Root',
            where: [],
            row: {
              smap: [
                'map',
                [
                  ['k', 'w'],
                  ['z', 'z'],
                ],
              ],
            },
          },
        ],
      },
      {
        s: 0,
        req: 'transact',
        params: [
          DB,
          { op: 'delete', table: 'Root', where: [['name', '==', 'y']] },
          { op: 'abort' },
        ],
      },
      {
        s: 0,
        req: 'transact',
        params: [DB, { op: 'delete', table: 'Root', where: [['name', '==', 'y']] }],
      },
    ],
  },
  {
    name: 'wait: satisfied by a later commit, timed out, duplicate ids, cancel',
    sessions: 2,
    steps: [
      { s: 0, req: 'transact', params: [DB, wait('w1')], id: 'W1' },
      { s: 0, req: 'transact', params: [DB, wait('w1')], id: 'W1' },
      { s: 0, req: 'transact', params: [DB, wait('w2', 100)], id: 'W2' },
      { s: 0, req: 'monitor', params: [DB, 'mon', { Root: { columns: ['name', 'i'] } }] },
      { s: 1, req: 'transact', params: [DB, insertRoot('w1', { i: 4 })] },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Root', where: [['name', '==', 'w1']], row: { i: 5 } }],
      },
      { sleep: 200 },
      {
        s: 0,
        req: 'transact',
        params: [
          DB,
          wait('w3'),
          { op: 'insert', table: 'Root', row: { name: 'after-w3', sset: 'q' } },
        ],
        id: 'W3',
      },
      { s: 1, req: 'transact', params: [DB, insertRoot('w3', { i: 5 })] },
      { s: 0, note: 'cancel', params: ['W3'] },
      { s: 0, req: 'transact', params: [DB, wait('w4')], id: 'W4' },
      { s: 0, note: 'cancel', params: ['W4'] },
      { s: 0, note: 'cancel', params: ['W4', 1] },
      { s: 0, note: 'cancel', params: ['nothing'] },
      { s: 0, req: 'set_db_change_aware', params: [true] },
      { s: 0, req: 'transact', params: [DB, wait('w5')], id: 'W5' },
      { s: 0, note: 'cancel', params: ['W5'] },
      { s: 0, note: 'set_db_change_aware', params: [false] },
      { s: 0, req: 'transact', params: [DB, wait('w6')], id: { complex: 'W6' } },
      { s: 0, note: 'cancel', params: [{ complex: 'W6' }] },
      { s: 0, req: 'transact', params: [DB, wait('w7', 0)] },
      { s: 0, req: 'transact', params: [DB, wait('w8')], id: 'W8' },
      { s: 0, close: true },
      { s: 1, req: 'transact', params: [DB, insertRoot('w8', { i: 5 })] },
    ],
  },
  {
    name: 'locks: lock, steal, unlock, assert, release on close',
    sessions: 3,
    steps: [
      { s: 0, req: 'lock', params: ['x'] },
      { s: 0, req: 'lock', params: ['x'] },
      { s: 1, req: 'steal', params: ['x'] },
      { s: 0, req: 'transact', params: [DB, { op: 'assert', lock: 'x' }] },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'assert', lock: 'x' }, { op: 'comment', comment: 'held' }],
      },
      { s: 2, req: 'lock', params: ['x'] },
      { s: 1, req: 'unlock', params: ['x'] },
      { s: 0, req: 'transact', params: [DB, { op: 'assert', lock: 'x' }] },
      { s: 0, req: 'steal', params: ['x'] },
      { s: 1, req: 'unlock', params: ['x'] },
      { s: 0, req: 'unlock', params: ['x'] },
      { s: 0, req: 'lock', params: ['x'] },
      { s: 2, close: true },
      { s: 1, req: 'lock', params: ['y'] },
      { s: 1, req: 'lock', params: ['not-an-id'] },
      { s: 1, req: 'lock', params: ['a', 'b'] },
      { s: 1, req: 'lock', params: [] },
      { s: 1, req: 'steal', params: [7] },
      { s: 1, req: 'unlock', params: ['z'] },
      { s: 1, req: 'unlock', params: [] },
      { s: 0, req: 'transact', params: [DB, { op: 'assert', lock: 'y' }] },
      { s: 0, req: 'transact', params: [DB, { op: 'assert', lock: 'bad-name' }] },
      { s: 1, close: true },
      { s: 0, req: 'lock', params: ['y'] },
    ],
  },
  {
    name: 'messages that make the server drop the connection',
    sessions: 3,
    steps: [
      { s: 0, raw: '{"jsonrpc":"2.0","method":"list_dbs","params":[],"id":1}' },
      { s: 1, raw: '{"method":"list_dbs","params":{},"id":1}' },
      { s: 2, raw: '{"method":"list_dbs","id":1}' },
    ],
  },
  {
    name: 'more messages that make the server drop the connection',
    sessions: 3,
    steps: [
      { s: 0, raw: '{"id":5,"result":[]}' },
      { s: 1, raw: '{"id":"echo","error":"x"}' },
      { s: 2, raw: '{"method":null,"params":[],"id":1}' },
    ],
  },
  {
    name: 'and more',
    sessions: 3,
    steps: [
      { s: 0, raw: '{"method":"list_dbs","params":[],"id":1,"result":5}' },
      { s: 1, raw: '{"method":"list_dbs", "params":[], "id":1} [1,2]' },
      { s: 2, raw: '{"method":"list_dbs","params":[]],"id":1}' },
    ],
  },
  {
    name: 'messages the server accepts or ignores',
    sessions: 1,
    steps: [
      { s: 0, raw: '{"id":"echo","result":[]}' },
      { s: 0, raw: '{"method":"list_dbs","params":[],"id":1,"result":null,"error":null}' },
      {
        s: 0,
        raw: '  {"method":"whatever","params":[1],"id":null}  \n\t{"method":"echo","params":["a"],"id":2}',
      },
      { s: 0, raw: '{"params":["b"],"id":3,"method":"echo"}' },
      { s: 0, note: 'update', params: ['x', {}] },
    ],
  },
  {
    name: 'waiting transactions of several sessions, completed by one commit, in order',
    sessions: 4,
    steps: [
      { s: 0, req: 'monitor', params: [DB, 'm0', { Root: { columns: ['name', 'i'] } }] },
      { s: 1, req: 'transact', params: [DB, wait('a'), insertRoot('b', { i: 5 })], id: 'T1' },
      { s: 2, req: 'transact', params: [DB, wait('b'), insertRoot('c', { i: 5 })], id: 'T2' },
      { s: 1, req: 'monitor_cond', params: [DB, 'm1', { Root: { columns: ['name'] } }] },
      {
        s: 3,
        req: 'monitor_cond_since',
        params: [DB, 'm3', { Root: { columns: ['i'] } }, ZERO_UUID],
      },
      { s: 2, req: 'transact', params: [DB, wait('c'), insertRoot('d')], id: 'T3' },
      { s: 3, req: 'transact', params: [DB, insertRoot('a', { i: 5 })] },
      { s: 0, req: 'transact', params: [DB, { op: 'delete', table: 'Root', where: [] }] },
    ],
  },
  {
    name: 'a waiting transaction completed by a commit of a session connected after it',
    sessions: 3,
    steps: [
      { s: 2, req: 'monitor_cond', params: [DB, 'late', { Root: { columns: ['name'] } }] },
      { s: 0, req: 'monitor_cond', params: [DB, 'early', { Root: { columns: ['i'] } }] },
      { s: 0, req: 'transact', params: [DB, wait('z'), insertRoot('after-z', { i: 1 })], id: 'Z' },
      { s: 1, req: 'transact', params: [DB, insertRoot('z', { i: 5 })] },
    ],
  },
  {
    name: 'removing and adding the database: monitor_canceled, canceled waits, disconnects',
    sessions: 3,
    steps: [
      { s: 0, req: 'set_db_change_aware', params: [true] },
      { s: 0, req: 'monitor_cond', params: [DB, 'aware', { Limited: { columns: ['a'] } }] },
      {
        s: 0,
        req: 'monitor',
        params: ['_Server', 'dbs', { Database: { columns: ['name', 'model'] } }],
      },
      { s: 0, req: 'transact', params: [DB, wait('never')], id: 'pending' },
      { s: 1, req: 'monitor_cond', params: [DB, 'unaware', { Limited: { columns: ['a'] } }] },
      { s: 2, req: 'set_db_change_aware', params: [true] },
      { appctl: ['ovsdb-server/remove-db', DB] },
      { s: 0, req: 'list_dbs', params: [] },
      { s: 0, req: 'transact', params: [DB, { op: 'comment', comment: 'gone' }] },
      { s: 0, req: 'monitor_cancel', params: ['aware'] },
      { appctl: ['ovsdb-server/add-db', '$dbPath'] },
      { s: 0, req: 'list_dbs', params: [] },
      {
        s: 2,
        req: 'transact',
        params: [DB, { op: 'insert', table: 'Limited', row: { a: 9, b: 'z' } }],
      },
    ],
  },
  {
    name: 'monitor_cond_since without history: found=false and a full dump',
    sessions: 2,
    steps: [
      { s: 1, req: 'transact', params: [DB, insertRoot('s1', { i: 3 })] },
      {
        s: 0,
        req: 'monitor_cond_since',
        params: [DB, 'a', { Root: { columns: ['name', 'i'] } }, ZERO_UUID],
      },
      {
        s: 0,
        req: 'monitor_cond_since',
        params: [
          DB,
          'b',
          { Root: { columns: ['i'], where: [['i', '>', 1]] } },
          '6e1dc4a2-6c63-4b0d-9d5c-4d0b3b3ba5a1',
        ],
      },
      {
        s: 1,
        req: 'transact',
        params: [DB, { op: 'update', table: 'Root', where: [], row: { i: 0 } }],
      },
    ],
  },
];

describe('JSON-RPC conversations', () => {
  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      const [real, memory] = await Promise.all([
        run('ovsdb-server', scenario),
        run('memory', scenario),
      ]);
      expect(real.length).toBe(scenario.steps.length);
      if (process.env.OVNKIT_PRINT_TRANSCRIPTS) console.log(JSON.stringify(real, null, 1));
      for (let i = 0; i < real.length; i++) {
        expect(memory[i], `after step ${i}: ${JSON.stringify(scenario.steps[i])}`).toEqual(real[i]);
      }
    });
  }
});
