/**
 * `readTransactReply` and `transactFailure`: the one reader of `transact`
 * replies, used by the connection's `transact` and by the database client's
 * typed and raw transactions.
 */

import { describe, expect, it } from 'vitest';
import {
  ProtocolError,
  RpcError,
  TransactionError,
  TransactionRefusedError,
} from '../../../src/ovsdb/wire/errors.js';
import { readTransactReply, transactFailure } from '../../../src/ovsdb/wire/results.js';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';

const ops: Operation[] = [
  { op: 'insert', table: 'T', row: {} },
  { op: 'delete', table: 'U', where: [] },
];
const where = 'unix:/x.sock';

describe('readTransactReply', () => {
  it('finds nothing wrong in a result per operation', () => {
    expect(readTransactReply(ops, [{ uuid: ['uuid', 'x'] }, { count: 0 }], where)).toBeUndefined();
  });

  it('names the first failing operation, with its kind, table and every result', () => {
    const results = [{}, { error: 'referential integrity violation', details: 'd' }, null];
    const e = readTransactReply(ops, results, where);
    expect(e).toBeInstanceOf(TransactionError);
    expect(e).not.toBeInstanceOf(TransactionRefusedError);
    expect([e?.opIndex, e?.op, e?.table, e?.error, e?.details, e?.commit]).toEqual([
      1,
      'delete',
      'U',
      'referential integrity violation',
      'd',
      false,
    ]);
    expect(e?.results).toBe(results);
  });

  it('reads the extra entry of a failed commit as a commit error', () => {
    const e = readTransactReply(ops, [{}, {}, { error: 'I/O error' }], where);
    expect([e?.opIndex, e?.commit, e?.op]).toEqual([2, true, undefined]);
  });

  it('reads a refused operation as a TransactionRefusedError', () => {
    const e = readTransactReply(ops, [{ error: 'permission error', details: 'no' }, null], where);
    expect(e).toBeInstanceOf(TransactionRefusedError);
    expect((e as TransactionRefusedError).refusedBy).toBe('server');
  });

  it('refuses a malformed reply with a ProtocolError naming who sent it', () => {
    expect(() => readTransactReply(ops, { a: 1 }, where)).toThrow(ProtocolError);
    expect(() => readTransactReply(ops, [{}], where)).toThrow(
      /^unix:\/x\.sock: unexpected "transact" reply: expected 2 results \(one per operation\) \(got 1\)/,
    );
    expect(() => readTransactReply(ops, [{}, 7], where)).toThrow(
      /an object result for operation 1/,
    );
  });
});

describe('transactFailure', () => {
  it('turns a refusal of the whole request into a TransactionRefusedError', () => {
    const rpc = new RpcError('transact', {
      error: 'not allowed',
      details: 'policy',
      refused_by: 'bridge',
      operation: 1,
    });
    const e = transactFailure(rpc, ops) as TransactionRefusedError;
    expect(e).toBeInstanceOf(TransactionRefusedError);
    expect([e.refusedBy, e.opIndex, e.op, e.table, e.cause]).toEqual([
      'bridge',
      1,
      'delete',
      'U',
      rpc,
    ]);
  });

  it('leaves any other error as it is', () => {
    const rpc = new RpcError('transact', 'unknown database');
    expect(transactFailure(rpc, ops)).toBe(rpc);
    const other = new Error('x');
    expect(transactFailure(other, ops)).toBe(other);
  });
});
