/**
 * Structured logs and failure events of the controller. Every reconcile,
 * delete and GC pass writes one {@link LogRecord} (with its timings); every
 * failure also gives a {@link FailureEvent}, the way a Kubernetes controller
 * records an event on the pod.
 *
 * Also the controllers' optional metrics hooks ({@link ControllerMetrics},
 * implemented over prom-client by `pools/metrics.ts`) and tracing
 * ({@link traced}: a span per step with an OpenTelemetry `Tracer` the user
 * passes; nothing is loaded when there is none).
 * @module
 */

import type { Span, SpanOptions, SpanStatusCode, Tracer } from '@opentelemetry/api';
import type { Ipam } from '../ipam/ipam.js';
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

/** What a controller reconciles: a pod, or a node's pool. */
export type ReconcileKind = 'pod' | 'pool';

/** How a reconcile ended. */
export type ReconcileResult = 'success' | 'failure';

/** The size of one node's pool, as the metrics read it. */
export interface PoolSize {
  readonly node: string;
  readonly idle: number;
  readonly inUse: number;
}

/**
 * The controllers' metrics hooks. A controller given no `metrics` option
 * calls nothing; `controllerMetrics` (`pools/metrics.ts`) implements them
 * over prom-client.
 */
export interface ControllerMetrics {
  /** One reconcile ended. */
  reconciled(kind: ReconcileKind, result: ReconcileResult, seconds: number): void;
  /** One reconcile failed for `reason`. */
  failed(kind: ReconcileKind, reason: string): void;
  /** Read this queue's depth at each scrape. */
  watchQueue(kind: ReconcileKind, depth: () => number): void;
  /** Read the IPAM's usage per subnet at each scrape. */
  watchIpam(ipam: Ipam): void;
  /** Read the pools' sizes at each scrape. */
  watchPools(sizes: () => Iterable<PoolSize>): void;
}

/** OpenTelemetry's `SpanStatusCode.ERROR` (its `@opentelemetry/api` types only are imported). */
const SPAN_STATUS_ERROR: SpanStatusCode.ERROR = 2;

/** Record `error` on `span` as an exception event and set the span's status to ERROR. */
function recordSpanError(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.recordException(error instanceof Error ? error : message);
  span.setStatus({ code: SPAN_STATUS_ERROR, message });
}

/**
 * Run `fn` in an active span `name` (a child of the active span, if any,
 * unless `options.root`): the span ends when `fn` settles, with error
 * status and the exception recorded when it throws. Without a tracer, just
 * `fn()`.
 */
export function traced<T>(
  tracer: Tracer | undefined,
  name: string,
  options: SpanOptions,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (tracer === undefined) return fn(undefined);
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      recordSpanError(span, e);
      throw e;
    } finally {
      span.end();
    }
  });
}

/** {@link traced} for a synchronous step. */
export function tracedSync<T>(
  tracer: Tracer | undefined,
  name: string,
  options: SpanOptions,
  fn: (span: Span | undefined) => T,
): T {
  if (tracer === undefined) return fn(undefined);
  return tracer.startActiveSpan(name, options, (span) => {
    try {
      return fn(span);
    } catch (e) {
      recordSpanError(span, e);
      throw e;
    } finally {
      span.end();
    }
  });
}
