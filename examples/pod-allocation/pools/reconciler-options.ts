/**
 * The options, failure events and counters of the pool reconciler
 * (`PoolReconciler`), and what its entry claims (`claims.ts`) need of it.
 * @module
 */

import type { Tracer } from '@opentelemetry/api';
import type { Nb } from 'ovnkit/nb';
import type { ControllerMetrics, LogRecord, LogSink } from '../controller/log.js';
import type { RateLimiter } from '../controller/rate-limiter.js';
import type { Ipam } from '../ipam/ipam.js';
import type { Subnet } from '../ipam/subnet.js';
import type { Clock } from './clock.js';
import type { PoolEntry } from './entry.js';
import type { PoolFailure } from './failure.js';
import type { PoolBounds } from './node.js';
import type { NodeSource } from './node-source.js';

/** Options of `PoolReconciler`. */
export interface PoolReconcilerOptions {
  /** The Northbound DSL over a connected client. */
  readonly nb: Nb;
  /** Where nodes come from. */
  readonly nodes: NodeSource;
  /** The IPAM (default: that of the `PodController` this is the `pools` of). */
  readonly ipam?: Ipam | undefined;
  /** The subnet of nodes that name none (default: none, such a node fails with `NoSubnet`). */
  readonly defaultSubnet?: string | undefined;
  /** Where entry ages are read (default `systemClock`). */
  readonly clock?: Clock | undefined;
  /** Nodes reconciled at once (default 4). */
  readonly concurrency?: number | undefined;
  /** Retry delays (default `defaultControllerRateLimiter()`). */
  readonly rateLimiter?: RateLimiter | undefined;
  /** Retries of a retryable failure before waiting for the next resync (default 5). */
  readonly maxRetries?: number | undefined;
  /** Interval of full resyncs, ms (default 30 000; 0: only at start). */
  readonly resyncIntervalMs?: number | undefined;
  /** Structured logs (default: none). */
  readonly log?: LogSink | undefined;
  /** Failure events (also kept in `PoolReconciler.events`). */
  readonly onEvent?: ((event: PoolFailureEvent) => void) | undefined;
  /** Metrics hooks (default: none). */
  readonly metrics?: ControllerMetrics | undefined;
  /** A span per node reconcile, with IPAM and NB transaction children (default: none). */
  readonly tracer?: Tracer | undefined;
}

/** A failure of one node's pool. */
export interface PoolFailureEvent extends PoolFailure {
  readonly time: string;
  readonly node: string;
  /** Whether the reconciler will try again by itself. */
  readonly retrying: boolean;
}

/** Counters since start. */
export interface PoolStats {
  reconciles: number;
  failures: number;
  /** Entries created by refills. */
  created: number;
  /** Idle entries released beyond `maxIdle`, or moved off a node's old subnet. */
  released: number;
  /** Entries of nodes that are gone, deleted. */
  collected: number;
  /** Entries claimed by pods. */
  claimed: number;
  /** Claimed ports returned to a pool. */
  returned: number;
  /** Status writes (`NodeSource.reportStatus` calls). */
  statusWrites: number;
  transactions: number;
  resyncs: number;
}

/** A node's valid configuration. */
export interface NodePlan {
  readonly bounds: PoolBounds;
  readonly subnet: Subnet;
}

/** What taking and giving back pool entries (`claims.ts`) needs of the reconciler. */
export interface ClaimingPools {
  readonly started: boolean;
  /** The reconciler's clock, ms. */
  readonly now: number;
  readonly nb: Nb;
  readonly ipam: Ipam;
  readonly stats: PoolStats;
  /** Idle entries per node, claims in flight taken out. */
  readonly idleEntries: Map<string, Map<string, PoolEntry>>;
  /** Entries being claimed. */
  readonly claiming: Set<string>;
  planOf(node: string): NodePlan | undefined;
  touch(node: string): void;
  log(level: LogRecord['level'], msg: string, fields?: Record<string, unknown>): void;
}
