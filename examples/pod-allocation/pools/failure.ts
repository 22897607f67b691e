/**
 * Why a node's pool could not be reconciled: typed errors for bad input
 * ({@link PoolBoundsError}, {@link NoSubnetError}) and for a claim that lost
 * its entry ({@link PoolEntryTakenError}), and {@link classifyPoolFailure},
 * which turns any error into a reason, a message and whether retrying may
 * help (as `classifyFailure` does for pods).
 * @module
 */

import { classifyFailure } from '../controller/failure.js';
import { IpamError } from '../ipam/errors.js';

/** Failure reasons of a node's pool. */
export type PoolFailureReason =
  | 'BadBounds'
  | 'NoSubnet'
  | 'SubnetExhausted'
  | 'NbConflict'
  | 'NbError';

/** A classified failure of a node's pool. */
export interface PoolFailure {
  readonly reason: PoolFailureReason;
  readonly message: string;
  /** False when only a change of the node can fix it (bad input). */
  readonly retryable: boolean;
}

/** Pool bounds that do not hold together. */
export class PoolBoundsError extends Error {
  /**
   * @param node - the node.
   * @param field - the setting (`minIdle`, `maxIdle`, `batchSize`, `idleTtlMs`).
   * @param value - its value.
   * @param why - what is wrong.
   */
  constructor(
    readonly node: string,
    readonly field: string,
    readonly value: unknown,
    why: string,
  ) {
    super(`node ${node}: pool ${field}=${JSON.stringify(value)} ${why}`);
    this.name = 'PoolBoundsError';
  }
}

/** A node whose pool has no subnet to draw from. */
export class NoSubnetError extends Error {
  /**
   * @param node - the node.
   * @param subnet - the subnet it names (undefined: none, and no default).
   */
  constructor(
    readonly node: string,
    readonly subnet: string | undefined,
  ) {
    super(
      subnet === undefined
        ? `node ${node}: no subnet (the node names none and there is no default subnet)`
        : `node ${node}: subnet ${JSON.stringify(subnet)} is not one of the topology's subnets`,
    );
    this.name = 'NoSubnetError';
  }
}

/** A pool entry that is no longer idle in NB when a claim commits (another claim won). */
export class PoolEntryTakenError extends Error {
  /**
   * @param entry - the entry's port name.
   * @param node - its node.
   * @param by - who holds it now (a pod key), if known.
   */
  constructor(
    readonly entry: string,
    readonly node: string,
    readonly by: string | undefined,
  ) {
    super(
      `pool entry ${entry} of node ${node} is no longer idle` +
        (by === undefined ? ' (gone from NB)' : ` (claimed by ${by})`),
    );
    this.name = 'PoolEntryTakenError';
  }
}

/** Classify an error raised while reconciling a node's pool. */
export function classifyPoolFailure(error: unknown): PoolFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof PoolBoundsError) return { reason: 'BadBounds', message, retryable: false };
  if (error instanceof NoSubnetError) return { reason: 'NoSubnet', message, retryable: false };
  if (error instanceof IpamError && error.reason === 'exhausted')
    return { reason: 'SubnetExhausted', message, retryable: true };
  if (error instanceof IpamError && error.reason === 'unknown-subnet')
    return { reason: 'NoSubnet', message, retryable: false };
  const pod = classifyFailure(error);
  return {
    reason: pod.reason === 'NbConflict' ? 'NbConflict' : 'NbError',
    message,
    retryable: true,
  };
}
