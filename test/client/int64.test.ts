/**
 * 64-bit integers end to end, against each target (ovsdb-server, the
 * in-memory server, and ovsdb-server through the WebSocket bridge): values
 * at and around the int64 limits and ±(2^53 ± 1) are written by the real
 * `ovsdb-client`, read exactly by a synced `connectDatabase` replica (a
 * `bigint` where unsafe, a `number` where safe), kept exact through monitor
 * updates, and written back through the typed builder (insert, update,
 * mutate `+= 0`) without changing the server's values, as `ovsdb-client`
 * shows them in its own text. An overflow is the server's `range error`; an
 * unsafe JS number is a `DatumError` naming the column before anything is
 * sent.
 */

import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { defineModel, type TableTypes } from '../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import type { Dialer } from '../../src/ovsdb/transport/dial.js';
import { dialRemote } from '../../src/ovsdb/transport/dial-node.js';
import { INT64_MAX, INT64_MIN, type Int64 } from '../../src/ovsdb/values/int64.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';
import { DatumError, TransactionError } from '../../src/ovsdb/wire/errors.js';
import { parseJson } from '../../src/ovsdb/wire/json-text.js';
import { TransactionView } from '../../src/transactions/index.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import type { Transacting } from '../helpers/typed.js';

const SCHEMA_PATH = new URL('../fixtures/int64-client.ovsschema', import.meta.url).pathname;
const DB = 'Int64Client';

/** A row of `Counter`, typed as the code generator types it. */
interface Counter {
  readonly _uuid: Uuid<'Counter'>;
  readonly _version: Uuid;
  readonly name: string;
  /** Unbounded: 64-bit. */
  readonly value: Int64;
  /** Bounded within ±(2^53−1): a number. */
  readonly bounded: number;
  /** Bounds beyond 2^53: 64-bit. */
  readonly wide: Int64 | null;
  readonly counts: Readonly<Record<string, Int64>>;
  readonly marks: readonly Int64[];
  readonly by_id: Readonly<Record<number | `${bigint}`, string>>;
  readonly ratio: number | null;
}
type CounterWrite = {
  -readonly [K in Exclude<keyof Counter, '_uuid' | '_version'>]?: Counter[K];
};
type Tables = { readonly Counter: TableTypes<Counter, CounterWrite, CounterWrite> };
const Model = defineModel<Tables>(parseSchema(parseJson(readFileSync(SCHEMA_PATH, 'utf8'))));

const P53 = 2n ** 53n + 1n; // 9007199254740993: the first integer a double cannot hold
const SAFE = Number.MAX_SAFE_INTEGER;

/** The rows ovsdb-client writes, as JSON text (the integers as digits, never through JS numbers). */
const ROWS: Record<string, string> = {
  max:
    '"value":9223372036854775807,"bounded":4095,"wide":4611686018427387904,' +
    '"counts":["map",[["max",9223372036854775807],["min",-9223372036854775808],' +
    '["p",9007199254740993],["n",-9007199254740993],["safe",9007199254740991]]],' +
    '"marks":["set",[-9223372036854775808,-9007199254740993,9007199254740991,9007199254740993,9223372036854775807]],' +
    '"by_id":["map",[[9223372036854775807,"max"],[-9223372036854775808,"min"],[9007199254740993,"p"],[7,"seven"]]]',
  min: '"value":-9223372036854775808,"wide":-4611686018427387904',
  p: '"value":9007199254740993,"marks":9007199254740993',
  n: '"value":-9007199254740993',
  safe: '"value":9007199254740991,"marks":["set",[9007199254740991,-9007199254740991]]',
};

/** The values of {@link ROWS} as the replica must hold them: canonical int64. */
const EXPECTED: Record<string, Partial<Counter>> = {
  max: {
    value: INT64_MAX,
    bounded: 4095,
    wide: 2n ** 62n,
    counts: { max: INT64_MAX, min: INT64_MIN, p: P53, n: -P53, safe: SAFE },
    marks: [INT64_MIN, -P53, SAFE, P53, INT64_MAX],
    by_id: {
      '9223372036854775807': 'max',
      '-9223372036854775808': 'min',
      '9007199254740993': 'p',
      7: 'seven',
    },
  },
  min: { value: INT64_MIN, wide: -(2n ** 62n), marks: [] },
  p: { value: P53, marks: [P53] },
  n: { value: -P53 },
  safe: { value: SAFE, marks: [-SAFE, SAFE] },
};

const COLUMNS = ['value', 'bounded', 'wide', 'counts', 'marks', 'by_id', 'ratio'];

describe.each(TARGETS)('64-bit integers against %s', (target) => {
  const fx = useTarget(target, { schemaPath: SCHEMA_PATH });
  const clients: DatabaseClient<Tables>[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close();
  });

  /** Run `ovsdb-client transact` with these operations (JSON text) and return its output. */
  const transactText = (ops: string): Promise<string> =>
    fx.server.ovsdbClient('transact', `["${DB}",${ops}]`);

  /** The row named `name` as ovsdb-client prints it (JSON text, `name` and the UUIDs left out). */
  const serverText = async (name: string): Promise<string> => {
    const out = await transactText(
      `{"op":"select","table":"Counter","where":[["name","==","${name}"]],"columns":${JSON.stringify(COLUMNS)}}`,
    );
    const m = /^\[\{"rows":\[(\{.*\})\]\}\]\s*$/.exec(out);
    if (m === null) throw new Error(`no single row ${name}: ${out}`);
    return m[1] as string;
  };

  /** A synced client of the target (over the bridge for the ws target), counting what it sends. */
  const open = async (): Promise<{
    client: DatabaseClient<Tables>;
    db: Transacting<Tables>;
    sent: string[];
  }> => {
    const sent: string[] = [];
    const dial: Dialer = async (remote, options) => {
      const dialed = await dialRemote(remote, options);
      const { transport } = dialed;
      const write = transport.write.bind(transport);
      transport.write = (text: string) => {
        sent.push(text);
        return write(text);
      };
      return dialed;
    };
    const client = connectDatabase({ remotes: fx.remote, model: Model, dial });
    clients.push(client);
    await client.ready;
    return { client, db: client, sent };
  };

  it('reads what ovsdb-client wrote exactly: bigints beyond ±(2^53−1), numbers within', async () => {
    const ops = Object.entries(ROWS).map(
      ([name, row]) => `{"op":"insert","table":"Counter","row":{"name":"${name}",${row}}}`,
    );
    const out = await transactText(ops.join(','));
    expect(out).not.toContain('error');
    const { client } = await open();
    for (const [name, want] of Object.entries(EXPECTED)) {
      const row = client.lookup('Counter', { name });
      expect(row, name).toBeDefined();
      expect(row, name).toMatchObject(want);
    }
    const max = client.lookup('Counter', { name: 'max' }) as Counter;
    expect(typeof max.value).toBe('bigint');
    expect(typeof max.bounded).toBe('number');
    expect(typeof max.counts['safe']).toBe('number');
    expect(typeof max.by_id[7]).toBe('string');
    const safe = client.lookup('Counter', { name: 'safe' }) as Counter;
    expect(safe.value).toBe(SAFE);
    expect(typeof safe.value).toBe('number');
    // The schema index on a 64-bit value works with either form of a safe value.
    expect(client.lookup('Counter', { name: 'p' })?.value).toBe(P53);
  });

  it('a monitor update of 64-bit values arrives exactly', async () => {
    const { client } = await open();
    const changed = client.waitFor(
      'Counter',
      (r) => r.name === 'p' && r.value === INT64_MIN + 1n && r.marks.length === 3,
      { timeoutMs: 10_000 },
    );
    const out = await transactText(
      '{"op":"update","table":"Counter","where":[["name","==","p"]],' +
        '"row":{"value":-9223372036854775807,"counts":["map",[["x",-9007199254740993]]],"wide":4611686018427387903}},' +
        '{"op":"mutate","table":"Counter","where":[["name","==","p"]],' +
        '"mutations":[["marks","insert",["set",[9223372036854775806,-9223372036854775807]]]]}',
    );
    expect(out).not.toContain('error');
    const row = await changed;
    expect(row.value).toBe(INT64_MIN + 1n);
    expect(row.counts).toStrictEqual({ x: -P53 });
    expect(row.wide).toBe(2n ** 62n - 1n);
    expect(row.marks).toStrictEqual([INT64_MIN + 1n, P53, INT64_MAX - 1n]);
  });

  it('writing values back through the builder leaves the server values unchanged', async () => {
    const { client, db } = await open();
    const max = client.lookup('Counter', { name: 'max' }) as Counter;
    const before = await serverText('max');
    expect(before).toContain('9223372036854775807');
    expect(before).toContain('-9223372036854775808');
    expect(before).toContain('9007199254740993');

    // An insert of a copy: the same text as the original.
    const { _uuid, _version, name, ...values } = max;
    await db.transact((tx) => tx.insert('Counter', { name: 'copy', ...values }));
    expect(await serverText('copy')).toBe(before);

    // An update with the row's own values, and `+= 0` on every integer column.
    await db.transact((tx) => tx.update('Counter', { name: 'max' }, values));
    expect(await serverText('max')).toBe(before);
    await db.transact((tx) =>
      tx.mutate('Counter', { name: 'max' }, [
        ['value', '+=', 0],
        ['wide', '+=', 0n],
        ['marks', '+=', 0],
        ['bounded', '+=', 0],
      ]),
    );
    expect(await serverText('max')).toBe(before);

    // Bigint operands; a safe value whose result is not safe becomes a bigint.
    await db.transact((tx) => {
      tx.mutate('Counter', { name: 'copy' }, [['value', '-=', P53]]);
      tx.mutate('Counter', { name: 'safe' }, [['marks', '*=', 2n]]);
    });
    await client.drained();
    expect(client.lookup('Counter', { name: 'copy' })?.value).toBe(INT64_MAX - P53);
    expect(client.lookup('Counter', { name: 'safe' })?.marks).toStrictEqual([
      -(2n ** 54n - 2n),
      2n ** 54n - 2n,
    ]);
    expect(await serverText('copy')).toContain(`"value":${INT64_MAX - P53}`);
    expect(await serverText('safe')).toContain(
      '"marks":["set",[-18014398509481982,18014398509481982]]',
    );
  });

  it('INT64_MAX += 1 is the server range error, as a typed result', async () => {
    const { db } = await open();
    await db.transact((tx) => tx.insert('Counter', { name: 'edge', value: INT64_MAX }));
    let e: unknown;
    try {
      await db.transact((tx) => tx.mutate('Counter', { name: 'edge' }, [['value', '+=', 1]]));
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(TransactionError);
    expect(e).toMatchObject({ op: 'mutate', table: 'Counter', error: 'range error' });
    expect(await serverText('edge')).toContain('"value":9223372036854775807');
  });

  it('the transaction view predicts what the server commits for its integer mutators at the int64 edges', async () => {
    const { client, db } = await open();
    // ovsdb-server's mul_int lets these products through, wrapped to 64 bits; then a plain product.
    const cases: [string, Int64, Int64, Int64][] = [
      ['wrap-a', -(2n ** 62n), -2, INT64_MIN],
      ['wrap-b', INT64_MIN, -1, INT64_MIN],
      ['plain', 3, 4, 12],
    ];
    for (const [name, start, factor, committed] of cases) {
      const { value: uuid } = await db.transact((tx) =>
        tx.insert('Counter', { name: `view-${name}`, value: start }),
      );
      let predicted: unknown;
      await db.transact((tx) => {
        const view = new TransactionView(tx, client);
        view.mutate('Counter', uuid, [['value', '*=', factor]]);
        predicted = view.get('Counter', uuid)?.value;
      });
      expect({ name, predicted }).toEqual({ name, predicted: committed });
      expect({ name, replica: client.get('Counter', uuid)?.value }).toEqual({
        name,
        replica: committed,
      });
      expect(await serverText(`view-${name}`)).toContain(`"value":${String(committed)}`);
    }
  });

  it('an unsafe JS number is a DatumError naming table.column, and nothing is sent', async () => {
    const { db, sent } = await open();
    const before = sent.length;
    let e: unknown;
    try {
      await db.transact((tx) => tx.insert('Counter', { name: 'bad', value: 2 ** 53 + 1 }));
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(DatumError);
    const d = e as DatumError;
    expect([d.table, d.column]).toEqual(['Counter', 'value']);
    expect(d.message).toMatch(
      /^Counter\.value: integer 9007199254740992 is not a safe JS integer .*pass it as a bigint/,
    );
    await expect(
      db.transact((tx) => tx.mutate('Counter', { name: 'max' }, [['value', '+=', 2 ** 60]])),
    ).rejects.toThrow(/Counter\.value: .*not a safe JS integer/);
    expect(sent.slice(before).filter((t) => t.includes('"transact"'))).toEqual([]);
    expect(
      await transactText('{"op":"select","table":"Counter","where":[["name","==","bad"]]}'),
    ).toBe('[{"rows":[]}]\n');
  });
});
