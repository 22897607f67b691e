/**
 * The one handle of a database: `openDatabase` gives a `DatabaseClient`
 * typed by its model (and its client indexes) with typed transactions
 * (`transact`, `transactBatches`), raw ones (`transactRaw`) and the replica's
 * reads; the Northbound DSL runs over that same handle; every send takes one
 * options type, spelled one way.
 */

import { describe, expectTypeOf, it } from 'vitest';
import {
  connect,
  type DatabaseClient,
  type OperationResult,
  openDatabase,
  type RawTransactOptions,
  type TransactionResult,
  type TransactOptions,
} from '../../src/index.js';
import { connectNb, createNb, lsAdd, NB, type NBTables, type Nb } from '../../src/nb/index.js';
import type { SendOptions } from '../../src/ovsdb/index.js';
import type { DryRunResult, Ref, TransactionExecutor } from '../../src/transactions/index.js';

declare const remotes: string;
const INDEXES = { Logical_Switch_Port: { pod: { column: 'external_ids', key: 'pod' } } } as const;

describe('openDatabase', () => {
  it('opens the handle, typed by the model and its client indexes', async () => {
    const db = await openDatabase({ remotes, model: NB, indexes: INDEXES });
    expectTypeOf(db).toEqualTypeOf<DatabaseClient<NBTables, typeof INDEXES>>();
    expectTypeOf(db.executor).toEqualTypeOf<TransactionExecutor<NBTables>>();
    expectTypeOf(db.byIndex('Logical_Switch_Port', 'pod', 'ns/web')).toEqualTypeOf<
      NBTables['Logical_Switch_Port']['row'][]
    >();
    // @ts-expect-error: no such client index
    db.byIndex('Logical_Switch_Port', 'node', 'n1');
    expectTypeOf(db.lookup('Logical_Switch', { name: 'sw0' })).toEqualTypeOf<
      NBTables['Logical_Switch']['row'] | undefined
    >();
  });
});

describe('one transact for typed transactions, one transactRaw for raw operations', () => {
  it('transact takes a builder callback and resolves with its value, handles resolved', async () => {
    const db = await openDatabase({ remotes, model: NB });
    const r = await db.transact((tx) => ({
      sw: tx.insert('Logical_Switch', { name: 'sw0' }),
      n: tx.delete('ACL', []),
    }));
    expectTypeOf(r).toEqualTypeOf<TransactionResult<{ sw: Ref<'Logical_Switch'>; n: number }>>();
    const dry = await db.transact((tx) => tx.comment('x'), { dryRun: true });
    expectTypeOf(dry).toEqualTypeOf<DryRunResult<void>>();
    // @ts-expect-error: raw operations go to transactRaw
    await db.transact([{ op: 'comment', comment: 'x' }]);
  });

  it('transactRaw takes wire operations and resolves with their results', async () => {
    const db = await openDatabase({ remotes, model: NB });
    const results = await db.transactRaw([{ op: 'comment', comment: 'x' }], { fence: false });
    expectTypeOf(results).toEqualTypeOf<OperationResult[]>();
    // @ts-expect-error: a callback goes to transact
    await db.transactRaw((tx: unknown) => tx);
  });

  it('transactBatches writes items in batches over the same handle', async () => {
    const db = await openDatabase({ remotes, model: NB });
    await db.transactBatches(['a', 'b'], 1, (tx, name) => {
      tx.insert('Logical_Switch', { name });
    });
  });
});

describe('one options type for a send, spelled one way', () => {
  it('timeoutMs, signal, cancelOnAbort and onSent(id) everywhere', async () => {
    expectTypeOf<SendOptions>().toEqualTypeOf<{
      readonly timeoutMs?: number | undefined;
      readonly signal?: AbortSignal | undefined;
      readonly cancelOnAbort?: boolean | undefined;
      readonly onSent?: ((id: number) => void) | undefined;
    }>();
    expectTypeOf<RawTransactOptions>().toMatchTypeOf<SendOptions>();
    expectTypeOf<TransactOptions['timeoutMs']>().toEqualTypeOf<number | undefined>();
    const db = await openDatabase({ remotes, model: NB });
    await db.transact((tx) => tx.comment('x'), { timeoutMs: 100 });
    // @ts-expect-error: the timeout is spelled timeoutMs
    await db.transact((tx) => tx.comment('x'), { timeout: 100 });
    await db.transactRaw([], { onSent: (id) => expectTypeOf(id).toEqualTypeOf<number>() });
    await db.waitFor('Logical_Switch', () => true, { timeoutMs: 10 });
    // @ts-expect-error: the timeout is spelled timeoutMs
    await db.waitFor('Logical_Switch', () => true, { timeout: 10 });
    const conn = await connect('unix:/x.sock');
    await conn.transact('OVN_Northbound', [], { timeoutMs: 1, onSent: (id) => conn.cancel(id) });
    // @ts-expect-error: the sent hook is onSent
    await conn.transact('OVN_Northbound', [], { onId: () => {} });
  });
});

describe('the Northbound DSL over the same handle', () => {
  it('connectNb opens the handle; nb.client is it, nb.close closes it', async () => {
    const nb = await connectNb({ remotes, indexes: INDEXES });
    expectTypeOf(nb).toEqualTypeOf<Nb<NBTables, typeof INDEXES>>();
    expectTypeOf(nb.client).toEqualTypeOf<DatabaseClient<NBTables, typeof INDEXES>>();
    expectTypeOf(nb.close()).toEqualTypeOf<Promise<void>>();
    await nb.transact((t) => lsAdd(t, 'sw0'));
    await nb.client.transact((tx) => tx.insert('Logical_Switch', { name: 'sw1' }));
    // @ts-expect-error: typed transactions are the handle's (nb.client.transact)
    nb.db;
  });

  it('createNb runs the DSL over a handle opened elsewhere', async () => {
    const db = await openDatabase({ remotes, model: NB });
    expectTypeOf(createNb(db)).toEqualTypeOf<Nb<NBTables, Record<never, never>>>();
  });
});
