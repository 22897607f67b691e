/**
 * Metrics and spans of typed transactions: {@link observedTransact} runs a
 * `transact` in a span and counts its outcome, for executors over a client
 * given a `metrics` or `tracer` option.
 * @module
 */

import type { ClientObservability, TransactionOutcomeLabel } from '../observability/metrics.js';
import {
  recordSpanError,
  SPAN_KIND_CLIENT,
  type SpanAttributes,
  type SpanLike,
  whenSettled,
} from '../observability/tracing.js';
import { SchemaDriftError } from '../ovsdb/schema/compat.js';
import { DatumError, TransactionError, TransactionRefusedError } from '../ovsdb/wire/errors.js';
import type { CompiledTransaction } from './builder.js';
import { TransactionOutcomeError, VerifyConflictError } from './errors.js';

/** What a running transaction tells its observer. */
export interface TransactProgress {
  readonly attempts: number;
  readonly replays: number;
  /** The last compiled form (undefined until the callback ran). */
  readonly compiled: CompiledTransaction | undefined;
}

/** The outcome label of an error thrown by `transact`. */
export function outcomeLabel(error: unknown): TransactionOutcomeLabel {
  if (error instanceof TransactionOutcomeError) {
    return error.outcome === 'not committed' ? 'not_committed' : error.outcome;
  }
  if (error instanceof VerifyConflictError) return 'conflict';
  if (error instanceof TransactionRefusedError) return 'refused';
  if (error instanceof TransactionError) return 'failed';
  if (error instanceof DatumError || error instanceof SchemaDriftError) return 'invalid';
  return 'not_committed';
}

/** The attributes of a transaction once it ended: its shape and how it went. */
function endAttributes(
  progress: TransactProgress,
  outcome: TransactionOutcomeLabel,
): SpanAttributes {
  const attributes: SpanAttributes = {
    'ovsdb.outcome': outcome,
    'ovsdb.attempts': progress.attempts,
    'ovsdb.replays': progress.replays,
  };
  const compiled = progress.compiled;
  if (compiled !== undefined) {
    const tables = new Set<string>();
    for (const op of compiled.ops) {
      if ('table' in op && typeof op.table === 'string') tables.add(op.table);
    }
    attributes['ovsdb.operations'] = compiled.ops.length;
    attributes['ovsdb.tables'] = [...tables].sort();
  }
  return attributes;
}

/**
 * Run `run` (one `transact`, whose state `progress` shows) observed: in a
 * span `ovsdb.transact` (active while it runs) when there is a tracer,
 * counted by outcome and timed when there are metrics.
 */
export function observedTransact<T>(
  observe: ClientObservability,
  progress: TransactProgress,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const finish = (span: SpanLike | undefined, error: unknown, failed: boolean): void => {
    const outcome = failed ? outcomeLabel(error) : 'committed';
    observe.metrics?.transaction(outcome, (performance.now() - started) / 1000);
    if (span !== undefined) {
      span.setAttributes(endAttributes(progress, outcome));
      if (failed) recordSpanError(span, error);
      span.end();
    }
  };
  const go = (span: SpanLike | undefined): Promise<T> =>
    whenSettled(run, (failed, error) => finish(span, error, failed));
  const tracer = observe.tracer;
  if (tracer === undefined) return go(undefined);
  return tracer.startActiveSpan(
    'ovsdb.transact',
    {
      kind: SPAN_KIND_CLIENT,
      attributes: {
        'db.system.name': 'ovsdb',
        'db.namespace': observe.db,
        'db.operation.name': 'transact',
      },
    },
    (span) => go(span),
  );
}
