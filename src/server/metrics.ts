/**
 * The in-memory server's metrics: what it reports through the `metrics`
 * option (a {@link ServerMetrics}, such as `prometheusMetrics(promClient)`):
 * the sessions and monitors, sampled when the metrics are read, and each
 * answered transaction by outcome.
 * @module
 */

import type {
  ServerMetrics,
  ServerMetricsRecorder,
  ServerTransactionOutcome,
} from '../observability/metrics.js';
import type { Served } from './registry.js';

/** The outcome of a transaction from its results: an error entry means it failed. */
export function serverTransactionOutcome(
  results: readonly unknown[],
  committed: boolean,
): ServerTransactionOutcome {
  for (const r of results) {
    if (typeof r === 'object' && r !== null && 'error' in r) return 'failed';
  }
  return committed ? 'committed' : 'unchanged';
}

/** What the server's metrics sample. */
export interface MeteredServer {
  /** The connected sessions, now. */
  sessionCount(): number;
  /** The monitors of every session, now. */
  monitorCount(): number;
}

/**
 * The server's recorder from its `metrics` option, and the `transacted`
 * hook of its transactions (both undefined without metrics).
 */
export function serverMetrics(
  metrics: ServerMetrics | undefined,
  server: MeteredServer,
):
  | {
      readonly recorder: ServerMetricsRecorder;
      readonly transacted: (served: Served, results: unknown[], committed: boolean) => void;
    }
  | undefined {
  if (metrics === undefined) return undefined;
  const recorder = metrics.forServer({
    sessions: () => server.sessionCount(),
    monitors: () => server.monitorCount(),
  });
  return {
    recorder,
    transacted: (served, results, committed) => {
      if (served.reserved) return;
      recorder.transaction(served.name, serverTransactionOutcome(results, committed));
    },
  };
}
