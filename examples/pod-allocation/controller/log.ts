/**
 * Structured logs and failure events of the controller. Every reconcile,
 * delete and GC pass writes one {@link LogRecord} (with its timings); every
 * failure also gives a {@link FailureEvent}, the way a Kubernetes controller
 * records an event on the pod.
 * @module
 */

import type { FailureReason } from './failure.js';
import type { PodKey } from './pod.js';

/** One structured log line. */
export interface LogRecord {
  readonly time: string;
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  /** What happened: `reconciled`, `deleted`, `failed`, `gc`, `started`, … */
  readonly msg: string;
  /** The pod, when the record is about one. */
  readonly pod?: PodKey | undefined;
  /** Anything else: subnet, ips, timings (`ms`, `ipamMs`, `nbMs`), counts. */
  readonly [field: string]: unknown;
}

/** Receives log records. */
export type LogSink = (record: LogRecord) => void;

/** A sink that writes JSON lines to a stream (stderr by default). */
export function jsonLogSink(
  write: (line: string) => void = (l) => process.stderr.write(l),
): LogSink {
  return (record) => write(`${JSON.stringify(record)}\n`);
}

/** A failure of one pod. */
export interface FailureEvent {
  readonly time: string;
  readonly pod: PodKey;
  readonly reason: FailureReason;
  readonly message: string;
  /** Whether the controller will try again by itself. */
  readonly retrying: boolean;
}
