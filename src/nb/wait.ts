/**
 * Waiting for OVN to apply Northbound changes, as `ovn-nbctl --wait=sb|hv`
 * does: the transaction increments `NB_Global.nb_cfg` (and reads the new
 * value back); `ovn-northd` copies it to `sb_cfg` once the Southbound
 * database reflects the change, and to `hv_cfg` once every `ovn-controller`
 * has applied it. Waiting means watching the replica until `sb_cfg` (for
 * `sb`) or both `sb_cfg` and `hv_cfg` (for `hv`) reach the new value.
 * @module
 */

import { WaitTimeoutError } from '../client/replica/replica.js';
import type { RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import { compareInt64, type Int64 } from '../ovsdb/values/int64.js';
import type { OperationHandle } from '../transactions/handles.js';
import { NbError, NbWaitTimeoutError } from './errors.js';
import type { NBTables } from './generated/model.js';
import type { NbRow, NbTxn } from './txn.js';

/** What to wait for: `sb` (ovn-northd updated the Southbound DB) or `hv` (every chassis applied it too). */
export type WaitTarget = 'sb' | 'hv';

/** Options of waiting for `ovn-northd` or the chassis ({@link Nb.waitFor}). */
export interface NbWaitOptions {
  /** Give up after this many ms with `NbWaitTimeoutError` (default 30 000). */
  readonly timeoutMs?: number | undefined;
  /** Abort the wait (rejects with the signal's reason). */
  readonly signal?: AbortSignal | undefined;
}

/** The default wait timeout, ms. */
export const DEFAULT_WAIT_TIMEOUT_MS = 30_000;

/** The largest `nb_cfg` before it wraps to 0 (JavaScript's safe integers end below OVSDB's). */
const NB_CFG_MAX = Number.MAX_SAFE_INTEGER - 1;

/** What the wait needs of the database client. */
export interface NbWaitClient<DB extends TableMap = NBTables> {
  /** Every row of `table`. */
  rows<T extends TableName<DB>>(table: T): Iterable<RowOf<DB, T>>;
  /** Resolve with the first row of `table` that matches (see the database client's `waitFor`). */
  waitFor<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
    options?: {
      readonly timeoutMs?: number | undefined;
      readonly signal?: AbortSignal | undefined;
    },
  ): Promise<RowOf<DB, T>>;
}

/**
 * Make sure `NB_Global` has its row (as `ovn-nbctl` does before every
 * command) and return it; nothing (undefined) when the client does not
 * monitor `NB_Global` (the DSL's operations do not read it; only waiting
 * does, see {@link bumpNbCfg}).
 *
 * ```ts
 * // on an empty database:
 * // {"op":"wait","table":"NB_Global","where":[],"columns":["name"],"until":"==","rows":[],"timeout":0}
 * // {"op":"insert","table":"NB_Global","row":{},"uuid":"<g>","uuid-name":"row0"}
 * ```
 */
export function ensureNbGlobal(t: NbTxn): NbRow<'NB_Global'> | undefined {
  if (!t.monitors('NB_Global')) return undefined;
  return nbGlobal(t);
}

/**
 * `NB_Global`'s row, created when missing.
 * @throws TableNotMonitoredError when the client does not monitor `NB_Global`.
 */
function nbGlobal(t: NbTxn): NbRow<'NB_Global'> {
  const existing = t.rows('NB_Global')[0];
  if (existing !== undefined) return existing;
  t.guardAbsent('NB_Global', 'name', undefined, () => new NbGlobalRaceError());
  const uuid = t.insert('NB_Global', {});
  return t.get('NB_Global', uuid)!;
}

/**
 * `NB_Global` was missing from the replica, but another client (typically
 * `ovn-northd` starting) created it before the transaction ran. `nb.transact`
 * handles it by waiting for the replica to show the row and running the
 * transaction again.
 */
export class NbGlobalRaceError extends NbError {
  override name = 'NbGlobalRaceError';
  constructor() {
    super('NB_Global was created by another client while this transaction was being sent');
  }
}

/**
 * Add to the transaction the increment of `NB_Global.nb_cfg` and a read of
 * its new value (the value to wait for, once the transaction committed).
 *
 * ```ts
 * const cfg = bumpNbCfg(t);
 * // {"op":"mutate","table":"NB_Global","where":[["_uuid","==",["uuid","<g>"]]],"mutations":[["nb_cfg","+=",1]]}
 * // {"op":"select","table":"NB_Global","where":[["_uuid","==",["uuid","<g>"]]],"columns":["nb_cfg"]}
 * ```
 * @throws TableNotMonitoredError when the client does not monitor `NB_Global`.
 */
export function bumpNbCfg(t: NbTxn): OperationHandle<{ nb_cfg: Int64 }[]> {
  const nb = nbGlobal(t);
  if (nb.nb_cfg >= NB_CFG_MAX) t.update('NB_Global', nb._uuid, { nb_cfg: 0 });
  t.mutate('NB_Global', nb._uuid, [['nb_cfg', '+=', 1]]);
  return t.tx.select('NB_Global', nb._uuid, ['nb_cfg']);
}

/** The configuration sequence number `target` has reached, per `NB_Global`. */
export function reachedCfg(target: WaitTarget, row: NbRow<'NB_Global'>): Int64 {
  if (target === 'sb') return row.sb_cfg;
  return compareInt64(row.sb_cfg, row.hv_cfg) <= 0 ? row.sb_cfg : row.hv_cfg;
}

/**
 * Wait until `target` reaches configuration `expected` (see the module
 * documentation).
 * @throws NbWaitTimeoutError when it does not within the timeout; the
 *   signal's reason when aborted; the client's error when it closes.
 */
export async function waitForNbCfg(
  client: NbWaitClient,
  target: WaitTarget,
  expected: Int64,
  options: NbWaitOptions = {},
): Promise<void> {
  if (target !== 'sb' && target !== 'hv')
    throw new TypeError(`waitFor: target must be "sb" or "hv", got ${String(target)}`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`waitFor: timeoutMs must be a positive number of ms, got ${timeoutMs}`);
  }
  try {
    await client.waitFor('NB_Global', (row) => reachedCfg(target, row) >= expected, {
      timeoutMs,
      signal: options.signal,
    });
  } catch (e) {
    if (e instanceof WaitTimeoutError) {
      let current: Int64 | undefined;
      for (const row of client.rows('NB_Global')) current = reachedCfg(target, row);
      throw new NbWaitTimeoutError(target, expected, current, timeoutMs);
    }
    throw e;
  }
}
