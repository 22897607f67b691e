/**
 * The lock API's public types: `client.lock` and `db.lock` give a
 * `DatabaseLock` whose state is one of four names, status events carry the
 * lock, `fence` is a lock name (or `false` per transaction), and the
 * refusal names its lock.
 */

import { describe, expectTypeOf, it } from 'vitest';
import {
  connectDatabase,
  type DatabaseLock,
  LockNotHeldError,
  type LockState,
  type LockStatus,
  type StatusEvent,
  type TransactionRefusedError,
} from '../../src/client/index.js';
import { NB, type NBTables } from '../../src/nb/index.js';
import { type DatabaseHandle, openDatabase } from '../../src/transactions/index.js';

declare const remotes: string;
declare const handle: DatabaseHandle<NBTables>;

const nb = connectDatabase({ remotes, model: NB, fence: 'pod_allocation' });

describe('locks', () => {
  it('client.lock and db.lock give a DatabaseLock', () => {
    const lock = nb.lock('pod_allocation', { steal: true });
    expectTypeOf(lock).toEqualTypeOf<DatabaseLock>();
    expectTypeOf(handle.lock('x')).toEqualTypeOf<DatabaseLock>();
    expectTypeOf(lock.state).toEqualTypeOf<LockState>();
    expectTypeOf<LockState>().toEqualTypeOf<'waiting' | 'held' | 'lost' | 'released'>();
    expectTypeOf(lock.held).toEqualTypeOf<boolean>();
    expectTypeOf(lock.whenHeld()).toEqualTypeOf<Promise<void>>();
    expectTypeOf(lock.steal()).toEqualTypeOf<Promise<void>>();
    expectTypeOf(lock.release()).toEqualTypeOf<Promise<void>>();
    // @ts-expect-error: the state is read-only
    lock.state = 'held';
    // @ts-expect-error: a lock name is a string
    nb.lock(1);
    // @ts-expect-error: unknown option
    nb.lock('x', { wait: true });
  });

  it('the status says which locks are held', () => {
    expectTypeOf(nb.status.locks).toEqualTypeOf<readonly LockStatus[]>();
    nb.onStatus((e) => {
      expectTypeOf(e).toEqualTypeOf<StatusEvent>();
      if (e.type === 'lock') expectTypeOf(e.lock).toEqualTypeOf<LockStatus | undefined>();
    });
  });

  it('fence: a lock name for the client, a name or false per transaction', async () => {
    await nb.transact([], { fence: false });
    await nb.transact([], { fence: 'other' });
    // @ts-expect-error: `true` names no lock
    await nb.transact([], { fence: true });
    // @ts-expect-error: the client's fence is a name
    connectDatabase({ remotes, model: NB, fence: false });
    const db = await openDatabase({ remotes, model: NB, fence: 'pod_allocation' });
    await db.transact(() => {}, { fence: false });
    // @ts-expect-error: `true` names no lock
    await db.transact(() => {}, { fence: true });
  });

  it('the refusal is a TransactionRefusedError naming its lock', () => {
    const e = new LockNotHeldError('L', 'client', 'stolen');
    expectTypeOf(e).toExtend<TransactionRefusedError>();
    expectTypeOf(e.lock).toEqualTypeOf<string>();
    // @ts-expect-error: a bridge never refuses for a lock
    new LockNotHeldError('L', 'bridge', 'x');
  });
});
