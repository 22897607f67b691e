/**
 * A node as the pool reconciler sees it: its name, the subnet its pool
 * draws from, and the bounds of its warm pool ({@link PoolNode}), checked by
 * {@link poolBounds}.
 * @module
 */

import { PoolBoundsError } from './failure.js';

/** The default number of entries created per refill transaction. */
export const DEFAULT_BATCH_SIZE = 10;

/** The default idle time-to-live of an entry beyond `maxIdle`, ms. */
export const DEFAULT_IDLE_TTL_MS = 5 * 60_000;

/** A node and its pool settings (what a node informer plus its pool config would give). */
export interface PoolNode {
  /** The node's name (also its `options:requested-chassis`). */
  readonly name: string;
  /** The subnet (logical switch) its entries are on (default: the reconciler's `defaultSubnet`). */
  readonly subnet?: string | undefined;
  /** Idle entries the reconciler keeps at least (default 0). */
  readonly minIdle?: number | undefined;
  /** Idle entries beyond this many are released once idle for `idleTtlMs` (default `minIdle`). */
  readonly maxIdle?: number | undefined;
  /** Entries created per refill transaction (default {@link DEFAULT_BATCH_SIZE}). */
  readonly batchSize?: number | undefined;
  /** How long an entry beyond `maxIdle` stays idle before it is released, ms (default {@link DEFAULT_IDLE_TTL_MS}). */
  readonly idleTtlMs?: number | undefined;
}

/** The bounds of one node's pool, defaults applied and checked. */
export interface PoolBounds {
  readonly minIdle: number;
  readonly maxIdle: number;
  readonly batchSize: number;
  readonly idleTtlMs: number;
}

function count(node: string, field: keyof PoolBounds, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new PoolBoundsError(
      node,
      field,
      value,
      min === 0 ? 'must be an integer >= 0' : `must be an integer >= ${min}`,
    );
  }
  return value;
}

/**
 * The bounds of `node`'s pool.
 * @throws PoolBoundsError naming the field, its value and why: a negative
 *   or fractional count, `batchSize` 0, `minIdle > maxIdle`, a negative TTL.
 */
export function poolBounds(node: PoolNode): PoolBounds {
  const minIdle = count(node.name, 'minIdle', node.minIdle ?? 0, 0);
  const maxIdle = count(node.name, 'maxIdle', node.maxIdle ?? minIdle, 0);
  const batchSize = count(node.name, 'batchSize', node.batchSize ?? DEFAULT_BATCH_SIZE, 1);
  const idleTtlMs = node.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
  if (!(Number.isFinite(idleTtlMs) && idleTtlMs >= 0)) {
    throw new PoolBoundsError(node.name, 'idleTtlMs', idleTtlMs, 'must be a number of ms >= 0');
  }
  if (minIdle > maxIdle) {
    throw new PoolBoundsError(
      node.name,
      'minIdle',
      minIdle,
      `is above maxIdle ${maxIdle} (need minIdle <= maxIdle)`,
    );
  }
  return { minIdle, maxIdle, batchSize, idleTtlMs };
}
