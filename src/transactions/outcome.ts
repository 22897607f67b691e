/**
 * What a committed transaction resolves with: {@link TransactionResult},
 * and how its commit was learnt ({@link Resolution}).
 * @module
 */

import { ProtocolError } from '../ovsdb/wire/errors.js';
import { errorText, preview } from '../ovsdb/wire/json.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { CompiledTransaction } from './builder.js';
import { TransactionOutcomeError } from './errors.js';
import { containsHandle, type Resolved, resolveHandles } from './handles.js';

/** How a transaction's outcome was learnt. */
export type Resolution =
  /** The reply to the transaction itself. */
  | 'reply'
  /** The reply to a retry (with `idempotent: true`, or for a read-only transaction). */
  | 'retry'
  /** The replica, in sync after reconnecting, holds a row the transaction inserted. */
  | 'replica'
  /** A `select` by `_uuid` of the inserted rows, after reconnecting. */
  | 'probe'
  /** A retry failed with "duplicate uuid": an earlier attempt had inserted the row. */
  | 'duplicate uuid';

/** A committed transaction. */
export interface TransactionResult<V> {
  /** Always `committed`: failures throw. */
  readonly outcome: 'committed';
  /** The callback's return value, with every operation handle replaced by its result. */
  readonly value: V;
  /** The operations of the attempt that committed, as sent. */
  readonly ops: readonly Operation[];
  /** How many times operations were sent. */
  readonly attempts: number;
  /** How many times the callback was replayed after a failed `verify`. */
  readonly replays: number;
  /** How the commit was learnt. */
  readonly resolution: Resolution;
}

/** The attempts and replays a result reports. */
export interface Counts {
  readonly attempts: number;
  readonly replays: number;
}

/** The result of a transaction that committed with a reply. */
export function committed<R>(
  value: R,
  compiled: CompiledTransaction,
  results: readonly unknown[],
  resolution: Resolution,
  counts: Counts,
): TransactionResult<Resolved<R>> {
  // A callback that returns nothing (or a primitive) has no handle to resolve.
  let resolved = value as Resolved<R>;
  if (typeof value === 'object' && value !== null) {
    try {
      resolved = resolveHandles(value, (h) => {
        const r = results[h.index];
        if (typeof r !== 'object' || r === null) {
          throw new ProtocolError(
            `operation ${h.index}: expected an object result, got ${preview(r)}`,
          );
        }
        return h.decode(r as Readonly<Record<string, unknown>>);
      });
    } catch (e) {
      throw new TransactionOutcomeError(
        'committed',
        `the transaction committed, but its results could not be read: ${errorText(e)}`,
        { cause: e },
      );
    }
  }
  return result(resolved, compiled, resolution, counts);
}

/** The result of a transaction known to have committed, whose reply was lost. */
export function committedWithoutReply<R>(
  value: R,
  compiled: CompiledTransaction,
  resolution: Resolution,
  reason: string,
  counts: Counts,
): TransactionResult<Resolved<R>> {
  if (containsHandle(value)) {
    throw new TransactionOutcomeError(
      'committed',
      `${reason}; the results of its operations were lost with the reply, so its value cannot be given`,
    );
  }
  return result(value as Resolved<R>, compiled, resolution, counts);
}

function result<V>(
  value: V,
  compiled: CompiledTransaction,
  resolution: Resolution,
  counts: Counts,
): TransactionResult<V> {
  return {
    outcome: 'committed',
    value,
    ops: compiled.ops,
    attempts: counts.attempts,
    replays: counts.replays,
    resolution,
  };
}
