/**
 * Why a pod could not be reconciled: {@link classifyFailure} turns an error
 * into a reason (the word a Kubernetes event would carry), a message, and
 * whether retrying may help.
 * @module
 */

import { AlreadyExistsError, NbError } from 'ovnkit/nb';
import { TransactionError } from 'ovnkit/ovsdb';
import { IpamError } from '../ipam/errors.js';
import { BadAnnotationError } from './annotations.js';

/** Failure reasons. */
export type FailureReason =
  | 'BadAnnotation'
  | 'OutsideCidr'
  | 'ExcludedIp'
  | 'ReservedIp'
  | 'IpConflict'
  | 'EipConflict'
  | 'PoolExhausted'
  | 'SubnetExhausted'
  | 'NbConflict'
  | 'NbError';

/** A classified failure. */
export interface Failure {
  readonly reason: FailureReason;
  readonly message: string;
  /** False when only a change of the pod can fix it (bad input). */
  readonly retryable: boolean;
}

/** Classify an error raised while reconciling a pod. */
export function classifyFailure(error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error);
  const permanent = (reason: FailureReason): Failure => ({ reason, message, retryable: false });
  const transient = (reason: FailureReason): Failure => ({ reason, message, retryable: true });
  if (error instanceof BadAnnotationError) return permanent('BadAnnotation');
  if (error instanceof IpamError) {
    switch (error.reason) {
      case 'invalid-address':
      case 'unknown-subnet':
      case 'invalid-subnet':
        return permanent('BadAnnotation');
      case 'outside-cidr':
        return permanent('OutsideCidr');
      case 'excluded':
        return permanent('ExcludedIp');
      case 'reserved':
        return permanent('ReservedIp');
      case 'conflict':
        return transient('IpConflict');
      case 'exhausted':
        return transient(message.includes('pool') ? 'PoolExhausted' : 'SubnetExhausted');
    }
  }
  if (error instanceof AlreadyExistsError) {
    if (error.kind === 'NAT') return transient('EipConflict');
    if (error.kind === 'logical switch port' && /address .* is already used/.test(message)) {
      return transient('IpConflict');
    }
    return transient('NbConflict');
  }
  if (error instanceof TransactionError && error.error === 'constraint violation')
    return transient('NbConflict');
  if (error instanceof NbError) return permanent('BadAnnotation');
  return transient('NbError');
}
