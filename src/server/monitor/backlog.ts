/**
 * The changes one monitor holds back for a session whose client does not
 * read (see `listeners/limits.ts`), merged per row as they come, as
 * ovsdb-server merges a backlogged session's monitor changes: a row keeps
 * its value before the first change and after the last one (a row inserted
 * and then deleted is dropped), so what waits follows the rows changed, not
 * the transactions. The JSON size of each row's update is kept up to date
 * and counted against the session's backlog bound.
 * @module
 */

import type { Row } from '../engine/database.js';
import type { RowChange, TxnChanges } from '../engine/executor.js';
import type { BacklogMeter } from '../listeners/limits.js';
import type { HistoryEntry } from './history.js';
import type { Monitor } from './monitor.js';

interface MergedRow {
  readonly table: string;
  readonly uuid: string;
  readonly old: Row | null;
  new: Row | null;
  readonly changed: Set<string>;
  /** The size of this row's update, as last measured. */
  bytes: number;
}

/** One monitor's held-back changes, merged per row. */
export class MergedBacklog {
  private readonly rows = new Map<string, MergedRow>();
  private lastId = '';
  private total = 0;
  /** The tables the monitor watches: changes to others are not kept. */
  private readonly tables: ReadonlySet<string>;

  constructor(
    private readonly monitor: Monitor,
    private readonly meter: BacklogMeter,
  ) {
    this.tables = new Set(monitor.tableNames);
  }

  /** Bytes of the merged updates. */
  get bytes(): number {
    return this.total;
  }

  /** Merge the changes of one committed transaction. */
  add(entry: HistoryEntry): void {
    this.lastId = entry.id;
    let delta = 0;
    for (const change of entry.changes.rows) {
      if (!this.tables.has(change.table)) continue;
      const key = `${change.table}\u0000${change.uuid}`;
      let r = this.rows.get(key);
      if (r === undefined) {
        r = {
          table: change.table,
          uuid: change.uuid,
          old: change.old,
          new: change.new,
          changed: new Set(change.changed),
          bytes: 0,
        };
        this.rows.set(key, r);
      } else {
        r.new = change.new;
        for (const c of change.changed) r.changed.add(c);
        if (r.new === null && r.old === null) {
          this.rows.delete(key);
          delta -= r.bytes;
          continue;
        }
      }
      const bytes = this.measure(r);
      delta += bytes - r.bytes;
      r.bytes = bytes;
    }
    this.total += delta;
    if (delta !== 0) this.meter.mergedChange(delta);
  }

  /** The merged changes as one history entry (for `Monitor.since`); the meter forgets them. */
  take(): HistoryEntry {
    const rows: RowChange[] = [];
    for (const r of this.rows.values()) rows.push(toChange(r));
    this.release();
    return { id: this.lastId, changes: { rows } };
  }

  /** Forget the merged changes (the monitor or its session is gone). */
  release(): void {
    if (this.total !== 0) this.meter.mergedChange(-this.total);
    this.total = 0;
    this.rows.clear();
  }

  /** The JSON size of the update `r` makes for this monitor (0 when it makes none). */
  private measure(r: MergedRow): number {
    const changes: TxnChanges = { rows: [toChange(r)] };
    const u = this.monitor.since([{ id: this.lastId, changes }]);
    if (u === undefined) return 0;
    return typeof u === 'string' ? u.length : u.reduce((n, p) => n + p.length, 0);
  }
}

function toChange(r: MergedRow): RowChange {
  return { table: r.table, uuid: r.uuid, old: r.old, new: r.new, changed: [...r.changed] };
}
