import { describe, expectTypeOf, it } from 'vitest';
import type { LogicalSwitchPort, NBTables } from '../../src/nb/generated/index.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';
import type {
  DryRunResult,
  OperationHandle,
  Ref,
  TransactionBuilder,
  TransactionResult,
} from '../../src/transactions/index.js';
import type { Transacting } from '../helpers/typed.js';
import type { TestTables } from '../transactions/fixtures/test-model/index.js';

declare const tx: TransactionBuilder<NBTables>;
declare const ttx: TransactionBuilder<TestTables>;
declare const db: Transacting<NBTables>;
declare const swUuid: Uuid<'Logical_Switch'>;
declare const lspUuid: Uuid<'Logical_Switch_Port'>;
declare const port: LogicalSwitchPort;

describe('insert and Ref', () => {
  it('returns a Ref of the table, usable where the model expects a Uuid of that table', () => {
    const ref = tx.insert('Logical_Switch_Port', { name: 'lsp1' });
    expectTypeOf(ref).toEqualTypeOf<Ref<'Logical_Switch_Port'>>();
    expectTypeOf(ref).toMatchTypeOf<Uuid<'Logical_Switch_Port'>>();
    expectTypeOf(ref).not.toMatchTypeOf<Uuid<'ACL'>>();
    tx.insert('Logical_Switch', { name: 'sw0', ports: [ref] });
    tx.mutate('Logical_Switch', swUuid, [['ports', 'insert', [ref]]]);
  });

  it('rejects a wrong column', () => {
    // @ts-expect-error Logical_Switch_Port has no column "nam"
    tx.insert('Logical_Switch_Port', { nam: 'lsp1' });
    // @ts-expect-error _uuid is not writable by an insert
    tx.insert('Logical_Switch_Port', { _uuid: lspUuid });
    // @ts-expect-error no such table
    tx.insert('Logical_Switch_Prot', {});
  });

  it('rejects a wrong value type', () => {
    // @ts-expect-error name is a string
    tx.insert('Logical_Switch_Port', { name: 5 });
    // @ts-expect-error addresses is a set of strings
    tx.insert('Logical_Switch_Port', { name: 'a', addresses: 'x' });
    // @ts-expect-error ACL.action is an enum
    tx.insert('ACL', { action: 'accept', direction: 'to-lport', match: '1', priority: 1 });
    // @ts-expect-error tag is optional (number | null), not a string
    tx.update('Logical_Switch_Port', lspUuid, { tag: '5' });
  });

  it('rejects a ref to the wrong table', () => {
    const acl = tx.insert('ACL', {
      action: 'drop',
      direction: 'to-lport',
      match: '1',
      priority: 1,
    });
    // @ts-expect-error an ACL ref is not a Logical_Switch_Port reference
    tx.insert('Logical_Switch', { name: 'sw0', ports: [acl] });
    // @ts-expect-error an ACL ref is not a Logical_Switch_Port reference
    tx.mutate('Logical_Switch', swUuid, [['ports', 'insert', [acl]]]);
    // @ts-expect-error an ACL ref does not select a Logical_Switch row
    tx.delete('Logical_Switch', acl);
    tx.mutate('Logical_Switch', swUuid, [['acls', 'insert', [acl]]]);
  });
});

describe('update', () => {
  it('accepts mutable columns and returns a row count', () => {
    expectTypeOf(
      tx.update('Logical_Switch_Port', { name: 'lsp1' }, { enabled: false }),
    ).toEqualTypeOf<OperationHandle<number>>();
  });

  it('rejects an update to an immutable column', () => {
    ttx.update('Root', { name: 'r' }, { i: 5 });
    // @ts-expect-error Root.fixed is immutable
    ttx.update('Root', { name: 'r' }, { fixed: 'x' });
    // @ts-expect-error Root.fixed is immutable, so it cannot be mutated either
    ttx.mutate('Root', { name: 'r' }, [['fixed', 'insert', ['x']]]);
    ttx.insert('Root', { name: 'r', fixed: 'x', sset: ['a'] });
  });
});

describe('conditions', () => {
  it('restrict < and friends to numbers', () => {
    tx.select('ACL', [['priority', '>=', 1000]]);
    tx.select('Logical_Switch_Port', [['tag', '<', 100]]);
    // @ts-expect-error "<" on a string column
    tx.select('Logical_Switch_Port', [['name', '<', 'a']]);
    // @ts-expect-error "<" on a set column
    tx.select('Logical_Switch_Port', [['addresses', '<', ['a']]]);
    // @ts-expect-error the value of "<" is a number
    tx.select('ACL', [['priority', '<', '5']]);
  });

  it('restrict includes/excludes to sets and maps', () => {
    tx.select('Logical_Switch_Port', [['addresses', 'includes', ['router']]]);
    tx.select('Logical_Switch_Port', [['external_ids', 'includes', { pod: 'web' }]]);
    tx.select('Logical_Switch_Port', [['port_security', 'excludes', []]]);
    // @ts-expect-error includes on a scalar string column
    tx.select('Logical_Switch_Port', [['name', 'includes', 'a']]);
  });

  it('type the value by the column', () => {
    tx.delete('Logical_Switch_Port', [
      ['name', '==', 'a'],
      ['up', '!=', true],
    ]);
    // @ts-expect-error up is a boolean
    tx.delete('Logical_Switch_Port', [['up', '==', 'yes']]);
    // @ts-expect-error no column "nam"
    tx.delete('Logical_Switch_Port', [['nam', '==', 'a']]);
    // @ts-expect-error unknown function
    tx.delete('Logical_Switch_Port', [['name', '~=', 'a']]);
  });

  it('accept a UUID of the table, or an index key', () => {
    tx.delete('Logical_Switch_Port', lspUuid);
    tx.delete('Logical_Switch_Port', port._uuid);
    tx.delete('Logical_Switch_Port', { name: 'lsp1' });
    // @ts-expect-error a Logical_Switch UUID does not select Logical_Switch_Port rows
    tx.delete('Logical_Switch_Port', swUuid);
    // @ts-expect-error index key with a wrong column
    tx.delete('Logical_Switch_Port', { nam: 'lsp1' });
    // @ts-expect-error index key with a wrong value type
    tx.delete('Logical_Switch_Port', { name: 1 });
  });
});

describe('mutations', () => {
  it('follow the column type', () => {
    tx.mutate('Logical_Switch_Port', lspUuid, [
      ['addresses', 'insert', ['router']],
      ['addresses', 'delete', ['dynamic']],
      ['external_ids', 'insert', { a: 'b' }],
      ['external_ids', 'delete', ['a']],
      ['external_ids', 'delete', { a: 'b' }],
      ['tag_request', '+=', 1],
    ]);
    tx.mutate('ACL', [], [['priority', '%=', 7]]);
    ttx.mutate(
      'Root',
      [],
      [
        ['rset', '*=', 2],
        ['iset', 'insert', [1, 2]],
        ['imap', 'delete', [1]],
        ['oi', 'insert', [4]],
        ['e', 'delete', ['alpha']],
      ],
    );
    // @ts-expect-error arithmetic on a string column
    tx.mutate('Logical_Switch_Port', lspUuid, [['name', '+=', 1]]);
    // @ts-expect-error insert into a scalar column
    tx.mutate('Logical_Switch_Port', lspUuid, [['name', 'insert', ['x']]]);
    // @ts-expect-error a set insert takes an array of elements
    tx.mutate('Logical_Switch_Port', lspUuid, [['addresses', 'insert', 'router']]);
    // @ts-expect-error the arithmetic operand is a number
    tx.mutate('ACL', [], [['priority', '+=', '1']]);
    // @ts-expect-error map values are strings
    tx.mutate('Logical_Switch_Port', lspUuid, [['external_ids', 'insert', { a: 1 }]]);
  });
});

describe('select and results', () => {
  it('types the rows by the columns asked for', () => {
    expectTypeOf(tx.select('Logical_Switch_Port', [], ['name', 'up'])).toEqualTypeOf<
      OperationHandle<Pick<LogicalSwitchPort, 'name' | 'up'>[]>
    >();
    expectTypeOf(tx.select('Logical_Switch_Port', [])).toEqualTypeOf<
      OperationHandle<LogicalSwitchPort[]>
    >();
    // @ts-expect-error no column "nam"
    tx.select('Logical_Switch_Port', [], ['nam']);
  });

  it('resolves the callback value', async () => {
    const r = await db.transact((t) => ({
      port: t.insert('Logical_Switch_Port', { name: 'p' }),
      rows: t.select('Logical_Switch_Port', [], ['name']),
      n: t.delete('ACL', []),
      list: [t.update('ACL', [], { priority: 1 })] as const,
    }));
    expectTypeOf(r).toEqualTypeOf<
      TransactionResult<{
        port: Ref<'Logical_Switch_Port'>;
        rows: Pick<LogicalSwitchPort, 'name'>[];
        n: number;
        list: [number];
      }>
    >();
    const dry = await db.transact(
      (t) => t.insert('ACL', { action: 'drop', direction: 'to-lport', match: '1', priority: 1 }),
      {
        dryRun: true,
      },
    );
    expectTypeOf(dry).toEqualTypeOf<DryRunResult<Ref<'ACL'>>>();
  });
});

describe('verify and wait', () => {
  it('verify takes the row and its columns', () => {
    tx.verify(port, ['name', 'addresses']);
    // @ts-expect-error no column "nam"
    tx.verify(port, ['nam']);
  });

  it('wait rows are typed by the columns', () => {
    tx.wait(
      'Logical_Switch_Port',
      { name: 'a' },
      { columns: ['up'], until: '==', rows: [{ up: true }] },
    );
    const rows = [{ up: 1 }];
    // @ts-expect-error up is a boolean
    tx.wait('Logical_Switch_Port', lspUuid, { columns: ['up'], until: '==', rows });
  });
});
