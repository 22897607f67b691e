import { describe, expect, it } from 'vitest';
import { NB, type NBTables } from '../../src/nb/generated/index.js';
import type { RowOf, TableName } from '../../src/ovsdb/schema/model.js';
import { asUuid, type Uuid } from '../../src/ovsdb/values/uuid.js';
import { DatumError, OvsdbError } from '../../src/ovsdb/wire/errors.js';
import { stringifyJson } from '../../src/ovsdb/wire/json-stringify.js';
import { compileTransaction } from '../../src/transactions/compile.js';
import { type ReplicaReader, TransactionBuilder } from '../../src/transactions/index.js';
import { applyMutation } from '../../src/transactions/view-rows.js';
import { Test, type TestTables } from './fixtures/test-model/index.js';

const SW = asUuid<'Logical_Switch'>('11111111-2222-4333-8444-555555555555');
const LSP = asUuid<'Logical_Switch_Port'>('aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee');
const ROOT = asUuid<'Root'>('99999999-8888-4777-8666-555555555555');

function nb(): TransactionBuilder<NBTables> {
  return new TransactionBuilder(NB);
}
function test(): TransactionBuilder<TestTables> {
  return new TransactionBuilder(Test);
}

/** Catch the DatumError `f` throws. */
function datumError(f: () => unknown): DatumError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(DatumError);
    return e as DatumError;
  }
  throw new Error('expected a DatumError');
}

describe('insert', () => {
  it('sends a client-chosen uuid and a uuid-name, and references within the transaction become named-uuid', () => {
    const tx = nb();
    const port = tx.insert('Logical_Switch_Port', { name: 'lsp1', addresses: ['router'] });
    const sw = tx.insert('Logical_Switch', { name: 'sw0', ports: [port] });
    tx.mutate('Logical_Switch', SW, [['ports', 'insert', [port]]]);
    const { ops } = tx.build();
    expect(JSON.parse(JSON.stringify(ops))).toEqual([
      {
        op: 'insert',
        table: 'Logical_Switch_Port',
        row: { name: 'lsp1', addresses: ['set', ['router']] },
        uuid: port,
        'uuid-name': 'row0',
      },
      {
        op: 'insert',
        table: 'Logical_Switch',
        row: { name: 'sw0', ports: ['set', [['named-uuid', 'row0']]] },
        uuid: sw,
        'uuid-name': 'row1',
      },
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['_uuid', '==', ['uuid', SW]]],
        mutations: [['ports', 'insert', ['set', [['named-uuid', 'row0']]]]],
      },
    ]);
    expect(port).toMatch(/^[0-9a-f-]{36}$/);
    expect(port).not.toBe(sw);
  });

  it('uses a given uuid, and records the inserts', () => {
    const tx = nb();
    const ref = tx.insert('Logical_Switch', { name: 'sw0' }, { uuid: SW });
    expect(ref).toBe(SW);
    const compiled = tx.build();
    expect(compiled.inserts).toEqual([{ index: 0, table: 'Logical_Switch', uuid: SW }]);
    expect(compiled.readOnly).toBe(false);
  });

  it('rejects an unknown column, _uuid, a wrong type, an enum or range violation, naming table, column, value and rule', () => {
    let e = datumError(() => nb().insert('Logical_Switch_Port', { nam: 'x' } as never));
    expect([e.table, e.column, e.value]).toEqual(['Logical_Switch_Port', 'nam', 'x']);
    expect(e.reason).toContain('has no column nam');

    e = datumError(() => nb().insert('Logical_Switch_Port', { _uuid: LSP } as never));
    expect(e.column).toBe('_uuid');

    e = datumError(() => nb().insert('Logical_Switch_Port', { name: 5 } as never));
    expect([e.table, e.column, e.value]).toEqual(['Logical_Switch_Port', 'name', 5]);
    expect(e.reason).toBe('expected a string, got integer 5');

    e = datumError(() => nb().insert('Logical_Switch_Port', { name: 'x', tag: 5000 }));
    expect([e.column, e.value, e.reason]).toEqual([
      'tag',
      5000,
      'integer 5000 is above maxInteger 4095',
    ]);

    e = datumError(() =>
      nb().insert('ACL', {
        action: 'accept' as never,
        direction: 'to-lport',
        match: '1',
        priority: 1,
      }),
    );
    expect(e.column).toBe('action');
    expect(e.reason).toContain('is not one of');
  });

  it('rejects an insert that leaves out a column whose default is invalid', () => {
    const e = datumError(() =>
      // @ts-expect-error action is required in AclInsert; the check at run time is tested here
      nb().insert('ACL', { direction: 'to-lport', match: '1', priority: 1 }),
    );
    expect([e.table, e.column]).toEqual(['ACL', 'action']);
    expect(e.reason).toMatch(/must be given: its default value is invalid/);
  });

  it('rejects an unknown table and a duplicate uuid', () => {
    const e = datumError(() => nb().insert('Nope' as TableName<NBTables>, {}));
    expect(e.reason).toBe('database OVN_Northbound has no table Nope');
    const tx = nb();
    tx.insert('Logical_Switch', {}, { uuid: SW });
    expect(() => tx.insert('Logical_Switch', {}, { uuid: SW })).toThrow(
      /already inserts a row with this UUID/,
    );
  });
});

describe('update, delete, select, wait, comment, assert, abort', () => {
  it('compile to the exact operations', () => {
    const tx = nb();
    const n = tx.update(
      'Logical_Switch_Port',
      { name: 'lsp1' },
      { enabled: false, options: { a: 'b' } },
    );
    const d = tx.delete('ACL', [
      ['priority', '<', 100],
      ['action', '==', 'drop'],
    ]);
    const s = tx.select('Logical_Switch_Port', [['up', '==', true]], ['name', 'addresses'], {
      sort: ['name'],
    });
    tx.wait('Logical_Switch_Port', LSP, {
      columns: ['up'],
      until: '!=',
      rows: [{ up: null }],
      timeout: 10,
    });
    tx.comment('hello');
    tx.assertLock('lock1');
    tx.abort();
    expect([n.index, n.op, n.table, d.index, s.index]).toEqual([
      0,
      'update',
      'Logical_Switch_Port',
      1,
      2,
    ]);
    const { ops, readOnly } = tx.build();
    expect(readOnly).toBe(false);
    expect(JSON.parse(JSON.stringify(ops))).toEqual([
      {
        op: 'update',
        table: 'Logical_Switch_Port',
        where: [['name', '==', 'lsp1']],
        row: { enabled: false, options: ['map', [['a', 'b']]] },
      },
      {
        op: 'delete',
        table: 'ACL',
        where: [
          ['priority', '<', 100],
          ['action', '==', 'drop'],
        ],
      },
      {
        op: 'select',
        table: 'Logical_Switch_Port',
        where: [['up', '==', true]],
        columns: ['name', 'addresses'],
        sort: ['name'],
      },
      {
        op: 'wait',
        table: 'Logical_Switch_Port',
        where: [['_uuid', '==', ['uuid', LSP]]],
        columns: ['up'],
        until: '!=',
        rows: [{ up: ['set', []] }],
        timeout: 10,
      },
      { op: 'comment', comment: 'hello' },
      { op: 'assert', lock: 'lock1' },
      { op: 'abort' },
    ]);
  });

  it('rejects a lock name that is not an id', () => {
    expect(() => nb().assertLock('with-dash')).toThrow(/a lock name is an id/);
    expect(() => nb().assertLock('')).toThrow(TypeError);
  });

  it('marks a transaction that only reads as read-only', () => {
    const tx = nb();
    tx.select('ACL', []);
    tx.comment('x');
    expect(tx.build().readOnly).toBe(true);
  });

  it('rejects an update of an immutable column, and unknown select columns', () => {
    let e = datumError(() => test().update('Root', ROOT, { fixed: 'x' } as never));
    expect([e.table, e.column, e.reason]).toEqual(['Root', 'fixed', 'column fixed is immutable']);
    e = datumError(() => nb().select('ACL', [], ['prio' as 'priority']));
    expect([e.table, e.column]).toEqual(['ACL', 'prio']);
  });

  it('rejects wait rows that miss a column or hold an invalid value', () => {
    let e = datumError(() =>
      nb().wait('ACL', [], { columns: ['priority'], until: '==', rows: [{} as never] }),
    );
    expect(e.column).toBe('priority');
    e = datumError(() =>
      nb().wait('ACL', [], { columns: ['priority'], until: '==', rows: [{ priority: 70000 }] }),
    );
    expect(e.reason).toContain('above maxInteger 32767');
  });
});

describe('conditions', () => {
  it('compile a UUID, a Ref, an index key and condition lists', () => {
    const tx = nb();
    const ref = tx.insert('Logical_Switch', { name: 'a' });
    tx.delete('Logical_Switch', ref);
    tx.delete('Logical_Switch_Port', { name: 'lsp1', up: true });
    tx.select('Logical_Switch_Port', [
      ['addresses', 'includes', ['router']],
      ['external_ids', 'excludes', { pod: 'x' }],
      ['tag', '>=', 5],
      ['dhcpv4_options', '==', null],
    ]);
    tx.select('Logical_Switch', []);
    const ops = JSON.parse(JSON.stringify(tx.build().ops)) as { where: unknown }[];
    expect(ops.slice(1).map((o) => o.where)).toEqual([
      [['_uuid', '==', ['named-uuid', 'row0']]],
      [
        ['name', '==', 'lsp1'],
        ['up', '==', true],
      ],
      [
        ['addresses', 'includes', ['set', ['router']]],
        ['external_ids', 'excludes', ['map', [['pod', 'x']]]],
        ['tag', '>=', 5],
        ['dhcpv4_options', '==', ['set', []]],
      ],
      [],
    ]);
  });

  it('reject functions the column type does not allow, and invalid values', () => {
    let e = datumError(() => nb().select('Logical_Switch_Port', [['name', '<', 'a']] as never));
    expect([e.table, e.column, e.value]).toEqual(['Logical_Switch_Port', 'name', 'a']);
    expect(e.reason).toContain('applies only to integer and real columns');
    e = datumError(() => nb().select('ACL', [['priority', '<', 40000]]));
    expect(e.reason).toBe('condition "<": integer 40000 is above maxInteger 32767');
    e = datumError(() => nb().select('ACL', [['priority', '~', 1]] as never));
    expect(e.reason).toContain('unknown condition function');
    e = datumError(() => nb().select('ACL', [['prio', '==', 1]] as never));
    expect(e.column).toBe('prio');
    e = datumError(() => nb().select('ACL', [['action', '==', 'accept']] as never));
    expect(e.reason).toContain('is not one of');
    e = datumError(() => nb().delete('ACL', {}));
    expect(e.reason).toContain('needs at least one column');
    e = datumError(() => nb().delete('ACL', 'not-a-uuid' as Uuid<'ACL'>));
    expect(e.column).toBe('_uuid');
  });
});

describe('mutations', () => {
  it('compile every mutator to the wire', () => {
    const tx = test();
    tx.mutate('Root', ROOT, [
      ['sset', 'insert', ['a', 'b']],
      ['sset', 'delete', ['c']],
      ['smap', 'insert', { k: 'v' }],
      ['smap', 'delete', ['k']],
      ['smap', 'delete', { k: 'v' }],
      ['imap', 'delete', [1, '2' as never]],
      ['bmap', 'delete', ['true']],
      ['i', '+=', 1],
      ['i', '-=', 2],
      ['i', '*=', 3],
      ['i', '/=', 4],
      ['i', '%=', 5],
      ['r', '*=', 1.5],
      ['rset', '+=', 1],
      ['oi', 'insert', [7]],
      ['e', 'delete', ['alpha']],
    ]);
    const [op] = JSON.parse(JSON.stringify(tx.build().ops)) as { mutations: unknown }[];
    expect(op!.mutations).toEqual([
      ['sset', 'insert', ['set', ['a', 'b']]],
      ['sset', 'delete', ['set', ['c']]],
      ['smap', 'insert', ['map', [['k', 'v']]]],
      ['smap', 'delete', ['set', ['k']]],
      ['smap', 'delete', ['map', [['k', 'v']]]],
      ['imap', 'delete', ['set', [1, 2]]],
      ['bmap', 'delete', ['set', [true]]],
      ['i', '+=', 1],
      ['i', '-=', 2],
      ['i', '*=', 3],
      ['i', '/=', 4],
      ['i', '%=', 5],
      ['r', '*=', 1.5],
      ['rset', '+=', 1],
      ['oi', 'insert', ['set', [7]]],
      ['e', 'delete', ['set', ['alpha']]],
    ]);
  });

  it('reject what the column type does not allow, naming table, column, value and rule', () => {
    const cases: [unknown, string, RegExp][] = [
      [['name', '+=', 1], 'name', /arithmetic applies only to integer and real columns/],
      [['r', '%=', 2], 'r', /"%=" applies only to integer columns/],
      [['i', '/=', 0], 'i', /division by zero/],
      [['i', '%=', 0], 'i', /division by zero/],
      [['i', '+=', 1.5], 'i', /expected an integer/],
      [['name', 'insert', ['x']], 'name', /insert and delete apply only to sets and maps/],
      [['fixed', 'insert', ['x']], 'fixed', /column fixed is immutable/],
      [['_uuid', 'insert', [ROOT]], '_uuid', /immutable/],
      [['iset', 'insert', [1, 2, 3, 4, 5, 6]], 'iset', /set has 6 elements, max 5/],
      [['iset', 'delete', [5000]], 'iset', /above maxInteger 1000/],
      [['imap', 'insert', { 1: 'abcd' }], 'imap', /longer than maxLength 3/],
      [['imap', 'delete', ['x']], 'imap', /not an integer/],
      [['sset', 'append', ['x']], 'sset', /unknown mutator/],
      [['nope', 'insert', ['x']], 'nope', /has no column nope/],
    ];
    for (const [m, column, reason] of cases) {
      const e = datumError(() => test().mutate('Root', ROOT, [m] as never));
      expect(e.table).toBe('Root');
      expect(e.column).toBe(column);
      expect(e.reason).toMatch(reason);
    }
  });
});

describe('verify', () => {
  const row = {
    _uuid: SW,
    name: 'sw0',
    ports: [LSP],
    other_config: { subnet: '10.0.0.0/24' },
  } as unknown as RowOf<NBTables, 'Logical_Switch'>;
  const replica: ReplicaReader<NBTables> = {
    get: <T extends TableName<NBTables>>(table: T, uuid: string) =>
      (table === 'Logical_Switch' && uuid === SW ? row : undefined) as
        | RowOf<NBTables, T>
        | undefined,
    isMonitored: () => true,
  };

  it('adds a wait asserting the row values, with timeout 0', () => {
    const tx = new TransactionBuilder(NB, replica);
    tx.verify(row, ['name', 'ports', 'other_config']);
    const compiled = tx.build();
    expect(JSON.parse(JSON.stringify(compiled.ops))).toEqual([
      {
        op: 'wait',
        table: 'Logical_Switch',
        where: [['_uuid', '==', ['uuid', SW]]],
        columns: ['name', 'ports', 'other_config'],
        until: '==',
        rows: [
          {
            name: 'sw0',
            ports: ['set', [['uuid', LSP]]],
            other_config: ['map', [['subnet', '10.0.0.0/24']]],
          },
        ],
        timeout: 0,
      },
    ]);
    expect(compiled.verifies).toEqual([
      {
        index: 0,
        table: 'Logical_Switch',
        uuid: SW,
        columns: ['name', 'ports', 'other_config'],
        values: { name: 'sw0', ports: [LSP], other_config: { subnet: '10.0.0.0/24' } },
      },
    ]);
    expect(compiled.readOnly).toBe(true);
  });

  it('needs a replica that holds the row', () => {
    expect(() => new TransactionBuilder(NB).verify(row, ['name'])).toThrow(OvsdbError);
    const other = { ...row, _uuid: LSP } as unknown as typeof row;
    expect(() => new TransactionBuilder(NB, replica).verify(other, ['name'])).toThrow(/has no row/);
    expect(() => new TransactionBuilder(NB, replica).verify(row, ['acls'])).toThrow(
      /no value for acls/,
    );
  });
});

describe('compileTransaction', () => {
  it('appends the comment and durable options, and returns the value', () => {
    const { compiled, value } = compileTransaction(
      NB,
      (tx) => tx.insert('Logical_Switch', { name: 'sw' }),
      { comment: 'why', durable: true },
    );
    expect(compiled.ops.slice(1)).toEqual([
      { op: 'comment', comment: 'why' },
      { op: 'commit', durable: true },
    ]);
    expect(value).toBe(compiled.inserts[0]!.uuid);
    expect(Object.isFrozen(compiled.ops)).toBe(true);
    expect(Object.isFrozen(compiled.ops[0])).toBe(true);
  });

  it('seals the builder once built, and refuses an async callback', () => {
    let kept: TransactionBuilder<NBTables> | undefined;
    compileTransaction(NB, (tx) => {
      kept = tx;
    });
    expect(() => kept!.comment('late')).toThrow(/already built/);
    expect(() => compileTransaction(NB, async () => {})).toThrow(/must be synchronous/);
  });
});

describe('64-bit integers', () => {
  const MAX = 2n ** 63n - 1n;
  const MIN = -(2n ** 63n);
  const P53 = 2n ** 53n + 1n;

  it('insert, update, conditions and mutations send bigints exactly and safe values as numbers', () => {
    const tx = test();
    tx.insert('Root', {
      name: 'r',
      oi: MAX,
      bmap: { true: MIN, false: 5n },
      imap: { '9007199254740993': 'x', 7: 'y' },
    });
    tx.update('Root', [['oi', '>=', P53]], { oi: -P53 });
    tx.mutate(
      'Root',
      [['oi', '==', 5n]],
      [
        ['oi', '+=', 2n ** 62n],
        ['oi', '*=', -1],
      ],
    );
    tx.delete('Root', { oi: MIN });
    const { ops } = tx.build();
    expect(stringifyJson(ops.map((o) => ({ ...o, uuid: undefined })))).toBe(
      '[{"op":"insert","table":"Root","row":{"name":"r","oi":9223372036854775807,' +
        '"bmap":["map",[[true,-9223372036854775808],[false,5]]],' +
        '"imap":["map",[[7,"y"],[9007199254740993,"x"]]]},"uuid-name":"row0"},' +
        '{"op":"update","table":"Root","where":[["oi",">=",9007199254740993]],"row":{"oi":-9007199254740993}},' +
        '{"op":"mutate","table":"Root","where":[["oi","==",5]],' +
        '"mutations":[["oi","+=",4611686018427387904],["oi","*=",-1]]},' +
        '{"op":"delete","table":"Root","where":[["oi","==",-9223372036854775808]]}]',
    );
  });

  it('an unsafe JS number is a DatumError naming table.column, before anything is built', () => {
    for (const f of [
      () => test().insert('Root', { name: 'r', oi: 2 ** 53 + 1 }),
      () => test().update('Root', [], { bmap: { true: 2 ** 60 } }),
      () => test().delete('Root', [['oi', '<', 2 ** 53]]),
      () => test().mutate('Root', [], [['oi', '+=', 2 ** 53]]),
    ]) {
      const e = datumError(f);
      expect(e.table).toBe('Root');
      expect(e.message).toMatch(
        /^Root\.(oi|bmap): .*is not a safe JS integer .*pass it as a bigint/,
      );
    }
    expect(datumError(() => test().insert('Root', { name: 'r', oi: 2n ** 63n })).reason).toMatch(
      /outside the int64 range/,
    );
    expect(datumError(() => test().mutate('Root', [], [['oi', '/=', 0n]])).reason).toContain(
      'division by zero',
    );
  });

  it('the transaction view applies integer mutations exactly, as the server does', () => {
    const oi = Test.schema.tables['Root']!.columns['oi']!;
    expect(applyMutation(oi, MAX - 1n, '+=', 1)).toBe(MAX);
    expect(applyMutation(oi, 2 ** 52, '*=', 4n)).toBe(2n ** 54n);
    expect(applyMutation(oi, P53, '-=', 2n)).toBe(2 ** 53 - 1);
    expect(applyMutation(oi, MIN, '/=', 3)).toBe(MIN / 3n);
    expect(applyMutation(oi, -7, '%=', 2n)).toBe(-1);
    // What the server would refuse (range error) leaves the value.
    expect(applyMutation(oi, MAX, '+=', 1)).toBe(MAX);
    const iset = Test.schema.tables['Root']!.columns['bmap']!;
    expect(applyMutation(iset, { true: 1 }, 'insert', { false: 5n, true: 2 })).toEqual({
      true: 1,
      false: 5,
    });
  });
});
