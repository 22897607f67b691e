/**
 * The execution layer's decisions (resend, resolve, replay, report), driven
 * by a scripted executor: each send is answered as the test says, so every
 * branch is exercised deterministically. The real-server behaviour is in
 * ops.test.ts, outcome.test.ts, replay.test.ts and r2-crash.test.ts.
 */

import { describe, expect, it } from 'vitest';
import { NB, type NBTables } from '../../src/nb/generated/index.js';
import type { RowOf, TableName } from '../../src/ovsdb/schema/model.js';
import {
  ConnectionClosedError,
  RequestTimeoutError,
  TransactionError,
} from '../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import {
  outcomeOf,
  type TransactionExecutor,
  TransactionOutcomeError,
  type TransactRequest,
  transact,
} from '../../src/transactions/index.js';
import { rejection } from './helpers.js';

/** What one send does: answer with results, lose the reply, or fail before sending. */
type Step =
  | { readonly reply: (ops: readonly Operation[]) => unknown[] }
  | { readonly lose: true }
  | { readonly unsent: unknown }
  | { readonly hang: true };

class ScriptedExecutor implements TransactionExecutor<NBTables> {
  readonly model = NB;
  readonly sent: (readonly Operation[])[] = [];
  readonly requests: TransactRequest[] = [];
  syncs = 0;
  syncError: unknown;
  rows = new Map<string, Record<string, unknown>>();
  readonly replica = {
    get: <T extends TableName<NBTables>>(_table: T, uuid: string) =>
      this.rows.get(uuid) as RowOf<NBTables, T> | undefined,
    isMonitored: () => true,
  };
  constructor(private readonly steps: Step[]) {}

  send(request: TransactRequest): void {
    const ops = request.ops;
    const step = this.steps.shift();
    if (step === undefined) {
      request.onError(new Error(`unexpected send: ${JSON.stringify(ops)}`));
      return;
    }
    this.requests.push(request);
    if ('unsent' in step) {
      request.onError(step.unsent);
      return;
    }
    request.onSent?.(this.sent.length);
    this.sent.push(ops);
    if ('lose' in step) {
      queueMicrotask(() => request.onError(new ConnectionClosedError('lost on purpose')));
      return;
    }
    if ('hang' in step) {
      // As a connection does: give up at the deadline, or when the signal aborts.
      const { deadline, signal } = request;
      const timer =
        deadline === undefined
          ? undefined
          : setTimeout(
              () => request.onError(new RequestTimeoutError('transact', deadline - Date.now())),
              deadline - Date.now(),
            );
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          request.onError(signal.reason);
        },
        { once: true },
      );
      return;
    }
    queueMicrotask(() => request.onReply(step.reply(ops)));
  }

  whenSynced(): Promise<void> {
    this.syncs++;
    return this.syncError === undefined ? Promise.resolve() : Promise.reject(this.syncError);
  }
}

const ok = (ops: readonly Operation[]) =>
  ops.map((o) =>
    o.op === 'insert'
      ? { uuid: ['uuid', o.uuid] }
      : o.op === 'select'
        ? { rows: [] }
        : { count: 1 },
  );
const found = (ops: readonly Operation[]) => ops.map(() => ({ rows: [{ _uuid: ['uuid', 'x'] }] }));
const notFound = (ops: readonly Operation[]) => ops.map(() => ({ rows: [] }));
const duplicateUuid = () => [{ error: 'duplicate uuid', details: 'exists' }];
const insertSwitch = (tx: Parameters<Parameters<typeof transact<NBTables, unknown>>[1]>[0]) =>
  tx.insert('Logical_Switch', { name: 'sw' });

describe('a lost reply', () => {
  it('of an inserting transaction: the probe decides (committed)', async () => {
    const ex = new ScriptedExecutor([{ lose: true }, { reply: found }]);
    const r = await transact(ex, insertSwitch);
    expect(r).toMatchObject({ outcome: 'committed', resolution: 'probe', attempts: 1 });
    expect(ex.sent[1]).toEqual([
      {
        op: 'select',
        table: 'Logical_Switch',
        where: [['_uuid', '==', ['uuid', r.value]]],
        columns: ['_uuid'],
      },
    ]);
  });

  it('of an inserting transaction: the replica decides when it holds the row (no probe)', async () => {
    const ex = new ScriptedExecutor([{ lose: true }]);
    let uuid = '';
    const p = transact(ex, (tx) => {
      uuid = insertSwitch(tx);
      ex.rows.set(uuid, { _uuid: uuid });
      return uuid;
    });
    expect(await p).toMatchObject({ outcome: 'committed', resolution: 'replica' });
    expect(ex.sent).toHaveLength(1);
  });

  it('of an inserting transaction: not found means not committed', async () => {
    const ex = new ScriptedExecutor([{ lose: true }, { reply: notFound }]);
    const e = await rejection(transact(ex, insertSwitch));
    expect(e).toBeInstanceOf(TransactionOutcomeError);
    expect(outcomeOf(e)).toBe('not committed');
  });

  it('of an inserting transaction when the executor closes: unknown', async () => {
    const ex = new ScriptedExecutor([{ lose: true }]);
    ex.syncError = new Error('client closed');
    const e = await rejection(transact(ex, insertSwitch));
    expect(outcomeOf(e)).toBe('unknown');
    expect((e as TransactionOutcomeError).reason).toContain('could not be resolved: client closed');
  });

  it('is probed again when the probe loses its reply too', async () => {
    const ex = new ScriptedExecutor([{ lose: true }, { lose: true }, { reply: found }]);
    expect(await transact(ex, insertSwitch)).toMatchObject({
      outcome: 'committed',
      resolution: 'probe',
    });
    expect(ex.syncs).toBe(2);
  });

  it('with idempotent: resent, and "duplicate uuid" on our insert means committed', async () => {
    const ex = new ScriptedExecutor([{ lose: true }, { reply: duplicateUuid }]);
    const r = await transact(ex, insertSwitch, { idempotent: true });
    expect(r).toMatchObject({ outcome: 'committed', resolution: 'duplicate uuid', attempts: 2 });
    expect(ex.sent[1]).toBe(ex.sent[0]);
  });

  it('with idempotent: after too many lost resends, the probe decides', async () => {
    const ex = new ScriptedExecutor([
      ...Array.from({ length: 6 }, () => ({ lose: true }) as const),
      { reply: notFound },
    ]);
    const e = await rejection(transact(ex, insertSwitch, { idempotent: true }));
    expect(outcomeOf(e)).toBe('not committed');
    expect(ex.sent).toHaveLength(7);
  });

  it('with idempotent: a resend failing for another reason, after a probe says not committed, is that error', async () => {
    const conflict = () => [{ error: 'constraint violation', details: 'something' }];
    const ex = new ScriptedExecutor([{ lose: true }, { reply: conflict }, { reply: notFound }]);
    const e = await rejection(transact(ex, insertSwitch, { idempotent: true }));
    expect(e).toBeInstanceOf(TransactionError);
    expect(e).toMatchObject({ error: 'constraint violation' });
  });

  it('without inserts: unknown; with idempotent, a failing resend is still unknown', async () => {
    const update = (tx: Parameters<Parameters<typeof transact<NBTables, unknown>>[1]>[0]) =>
      tx.update('Logical_Switch', { name: 'sw' }, { name: 'sw2' });
    let e = await rejection(transact(new ScriptedExecutor([{ lose: true }]), update));
    expect(outcomeOf(e)).toBe('unknown');
    e = await rejection(
      transact(
        new ScriptedExecutor([{ lose: true }, { reply: () => [{ error: 'timed out' }] }]),
        update,
        {
          idempotent: true,
        },
      ),
    );
    expect(outcomeOf(e)).toBe('unknown');
    expect((e as TransactionOutcomeError).reason).toContain('a retry failed');
  });

  it('of a read-only transaction: resent; when every resend is lost, not committed', async () => {
    const select = (tx: Parameters<Parameters<typeof transact<NBTables, unknown>>[1]>[0]) =>
      tx.select('Logical_Switch', [], ['name']);
    const r = await transact(new ScriptedExecutor([{ lose: true }, { reply: ok }]), select);
    expect(r).toMatchObject({ outcome: 'committed', resolution: 'reply', attempts: 2, value: [] });
    const e = await rejection(
      transact(new ScriptedExecutor(Array.from({ length: 6 }, () => ({ lose: true }))), select),
    );
    expect(outcomeOf(e)).toBe('not committed');
  });

  it('that committed, with operation results in the value: committed, results lost', async () => {
    const ex = new ScriptedExecutor([{ lose: true }, { reply: found }]);
    const e = await rejection(
      transact(ex, (tx) => ({ sw: insertSwitch(tx), n: tx.delete('ACL', []) })),
    );
    expect(outcomeOf(e)).toBe('committed');
    expect((e as TransactionOutcomeError).reason).toContain('results of its operations were lost');
  });
});

describe('before sending, and malformed replies', () => {
  it('an error before sending is passed through: not committed', async () => {
    const boom = new Error('no connection');
    const e = await rejection(transact(new ScriptedExecutor([{ unsent: boom }]), insertSwitch));
    expect(e).toBe(boom);
    expect(outcomeOf(e)).toBe('not committed');
  });

  it('a timeout while the request hangs is resolved like a lost reply', async () => {
    const ex = new ScriptedExecutor([{ hang: true }, { reply: notFound }]);
    const e = await rejection(transact(ex, insertSwitch, { timeoutMs: 20 }));
    expect(outcomeOf(e)).toBe('not committed');
    expect((e as TransactionOutcomeError).reason).toContain('no reply within 20 ms');
    expect((e as TransactionOutcomeError).cause).toBeInstanceOf(RequestTimeoutError);
    // The executor was asked to give up at a deadline, and to send `cancel` then.
    expect(ex.requests[0]).toMatchObject({ cancelOnAbort: true });
    expect(ex.requests[0]?.deadline).toBeTypeOf('number');
  });

  it('without cancel, a timed-out transaction is checked only after its longest wait', async () => {
    const ex = new ScriptedExecutor([{ hang: true }, { reply: found }]);
    const started = Date.now();
    const r = await transact(
      ex,
      (tx) => {
        tx.wait('ACL', [], { columns: ['priority'], until: '==', rows: [], timeout: 300 });
        return insertSwitch(tx);
      },
      { timeoutMs: 20 },
    );
    expect(r).toMatchObject({ outcome: 'committed', resolution: 'probe' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('without cancel, a timed-out transaction with an unbounded wait is unknown', async () => {
    const ex = new ScriptedExecutor([{ hang: true }]);
    const e = await rejection(
      transact(
        ex,
        (tx) => {
          tx.wait('ACL', [], { columns: ['priority'], until: '==', rows: [] });
          return insertSwitch(tx);
        },
        { timeoutMs: 20 },
      ),
    );
    expect(outcomeOf(e)).toBe('unknown');
    expect((e as TransactionOutcomeError).reason).toContain('cannot cancel it');
  });

  it('a timeout of a request that was never sent is a RequestTimeoutError', async () => {
    const ex = new ScriptedExecutor([{ unsent: new RequestTimeoutError('transact', 5) }]);
    expect(await rejection(transact(ex, insertSwitch, { timeoutMs: 5 }))).toBeInstanceOf(
      RequestTimeoutError,
    );
  });

  it('a committed reply whose results cannot be read is "committed"', async () => {
    const ex = new ScriptedExecutor([{ reply: () => [{ rows: 'not rows' }] }]);
    const e = await rejection(transact(ex, (tx) => tx.select('ACL', [])));
    expect(outcomeOf(e)).toBe('committed');
  });

  it('checks its options', async () => {
    const ex = new ScriptedExecutor([]);
    await expect(transact(ex, insertSwitch, { timeoutMs: -1 })).rejects.toThrow(
      /timeoutMs must be/,
    );
    await expect(transact(ex, insertSwitch, { retries: 1.5 })).rejects.toThrow(/retries must be/);
  });
});
