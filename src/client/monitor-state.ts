/**
 * The state the client's monitors keep (see `monitor-groups.ts`): each
 * monitor group with its tables and resume point, what is monitored of each
 * table, a run-time change of it, the notifications held during a sync,
 * and what the monitors need of the session they run on.
 * @module
 */

import type { ReconnectReason } from '../observability/metrics.js';
import type { OvsdbConnection } from '../ovsdb/connection/connection.js';
import type { CompatReport } from '../ovsdb/schema/compat.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { ZERO_UUID } from '../ovsdb/values/uuid.js';
import type { Condition, TableUpdates, TableUpdates2 } from '../ovsdb/wire/wire.js';

/** The transaction id meaning "none": a full dump. */
export const ZERO_TXN_ID: string = ZERO_UUID;

/** The monitor method a session uses: `monitor_cond_since`, `monitor_cond` or `monitor`. */
export type Method = 'since' | 'cond' | 'plain';

/** A monitor notification. */
export type Buffered =
  | { readonly kind: 'update'; readonly updates: TableUpdates }
  | { readonly kind: 'update2'; readonly updates: TableUpdates2 }
  | { readonly kind: 'update3'; readonly txnId: string; readonly updates: TableUpdates2 };

/** What is monitored of one table, and in which group. */
export interface TableConfig {
  columns: readonly string[] | undefined;
  /** The condition, compiled (wire form). */
  where: readonly Condition[] | undefined;
  /** The clauses of `where` not sent to the current server (it lacks their columns). */
  dropped: readonly Condition[];
  readonly group: MonitorGroup;
}

/** One monitor request: its tables, and where it resumes from. */
export interface MonitorGroup {
  readonly name: string;
  readonly id: string;
  readonly tables: string[];
  lastTxnId: string;
  /** The next sync must be a full dump. */
  needFull: boolean;
  /** Bumped by every condition change; the replica matches the server's conditions when equal to `syncedConditions`. */
  conditions: number;
  syncedConditions: number;
  /** Notifications held while the monitor's reply is awaited. */
  pending: Buffered[] | undefined;
  /** Tables of the group monitored in the current session. */
  active: string[];
  /** The session flush number when `lastTxnId` was last set (see `MonitorGroups.settle`). */
  idFlush: number;
}

/** What the monitors need of a session. */
export interface MonitorSession {
  readonly remote: string;
  readonly conn: OvsdbConnection;
  method: Method;
  compat: CompatReport | undefined;
  /** The server's schema (read before the monitors start). */
  schema: DatabaseSchema | undefined;
  /** Set once the session is ending. */
  readonly endReason: string | undefined;
  end(reason: string, error?: unknown, code?: ReconnectReason): void;
  /** The txn id of the latest `update3` flush seen, and that flush's number. */
  flushTxn: string | undefined;
  flushSeq: number;
  settleTimer: ReturnType<typeof setTimeout> | undefined;
}

/** A run-time change of what is monitored of one table (see `MonitorGroups.change`). */
export interface MonitorChange {
  readonly table: string;
  readonly config: TableConfig;
  readonly group: MonitorGroup;
  readonly columnsChanged: boolean;
}
