/**
 * `transact` requests of one server, and the transactions that wait: a
 * request whose `wait` is not yet satisfied stays pending (a
 * {@link Trigger}), is re-run after every later commit to its database as
 * ovsdb-server's trigger pass does, and fails with "timed out" when its
 * `timeout` passes.
 * @module
 */

import { performance } from 'node:perf_hooks';
import { errorText } from '../../ovsdb/wire/json.js';
import { stringifyJsonPieces, type TextInPieces } from '../../ovsdb/wire/json-stringify.js';
import type { TxnChanges } from '../engine/executor.js';
import { OpError, syntaxError } from '../engine/op-error.js';
import type { Served, Trigger } from '../registry.js';
import type { LockTable } from './locks.js';
import { jsonKey, type Session } from './session.js';

/** The longest delay a Node timer takes (2^31−1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What {@link Transactions} needs from its server. */
export interface TransactionHost {
  /** The server's locks (for `assert`). */
  readonly locks: LockTable<Session>;
  /** The connected sessions, in connection order (a copy). */
  sessions(): Session[];
  /**
   * Before a commit to `served` changes anything: queue its record for the
   * database's file, if it has one. Returns the commit's transaction id from
   * the file, if any.
   * @throws OpError when the record cannot be made (the commit is refused).
   */
  record(served: Served, changes: TxnChanges, durable: boolean): string | undefined;
  /** After a commit to `served`: its history and monitors (`fileId`: what {@link TransactionHost.record} returned). */
  committed(served: Served, changes: TxnChanges, fileId: string | undefined): void;
  /** Service session `s` in the main loop (flush its monitors unless it is backlogged). */
  service(s: Session): void;
  /** Called with every transaction's results once it is answered (metrics), if set. */
  readonly transacted?:
    | ((served: Served, results: unknown[], committed: boolean) => void)
    | undefined;
}

/** A transaction that ran: its results, and for a commit the reply's text. */
interface Executed {
  readonly results: unknown[];
  readonly reply: TextInPieces | undefined;
  readonly committed: boolean;
}

/** Runs the `transact` requests of one server and keeps the ones that wait. */
export class Transactions {
  constructor(private readonly host: TransactionHost) {}

  /** A `transact` request on `served` (`params` still begin with the database name). */
  transact(s: Session, served: Served, params: unknown[], id: unknown): void {
    const idKey = jsonKey(id);
    if (s.pending.has(idKey)) {
      s.replyError(id, syntaxError(params, undefined, 'transact: duplicate request ID').toJson());
      return;
    }
    const t: Trigger = {
      session: s,
      served,
      id,
      idKey,
      ops: params.slice(1),
      created: performance.now(),
      timer: undefined,
    };
    const r = this.execute(t, undefined);
    if (r === undefined) return;
    this.answer(t, r);
    if (r.committed) this.afterCommit(s, served);
  }

  /** Drop a pending transaction; a db-change-aware session gets the error "canceled". */
  cancel(t: Trigger, answer: boolean): void {
    this.forget(t);
    if (answer && t.session.dbChangeAware && !t.session.closed) {
      t.session.replyError(t.id, 'canceled');
    }
  }

  /**
   * Run a transaction. Returns its result array (and, for a commit, the
   * reply's text, made before the commit) and whether it committed changes,
   * or undefined when it must wait (it is then pending, with a timer for
   * its timeout).
   *
   * A commit is made only once its reply and its record are made: the
   * record queued for the file, the reply's text ready (in pieces when it
   * is longer than a string can be). When either cannot be made, the
   * transaction is refused with "resources exhausted" and nothing changes.
   */
  private execute(t: Trigger, elapsedOverride: number | undefined): Executed | undefined {
    const elapsed = elapsedOverride ?? Math.floor(performance.now() - t.created);
    const access = t.session.access;
    let reply: TextInPieces | undefined;
    let fileId: string | undefined;
    const out = t.served.db.transact(t.ops, {
      ownsLock: (name) => this.host.locks.owns(t.session, name),
      elapsedMs: elapsed,
      readOnly: access.readOnly,
      role: access.role,
      peerId: access.peerId,
      beforeCommit: (changes, durable, results) => {
        try {
          reply = stringifyJsonPieces(results);
        } catch (e) {
          throw new OpError(
            'resources exhausted',
            `the reply to this transaction cannot be made: ${errorText(e)}`,
          );
        }
        fileId = this.host.record(t.served, changes, durable);
      },
    });
    if (out.blocked === true) {
      if (!t.session.pending.has(t.idKey)) {
        t.session.pending.set(t.idKey, t);
        t.served.triggers.push(t);
      }
      if (t.timer !== undefined) clearTimeout(t.timer);
      t.timer = undefined;
      if (Number.isFinite(out.timeoutMs)) this.arm(t, out.timeoutMs);
      return undefined;
    }
    this.forget(t);
    if (out.changes !== null) this.host.committed(t.served, out.changes, fileId);
    this.host.transacted?.(t.served, out.results, out.changes !== null);
    return out.changes !== null && reply !== undefined
      ? { results: out.results, reply, committed: true }
      : { results: out.results, reply: undefined, committed: false };
  }

  /** Reply to `t` with its outcome. */
  private answer(t: Trigger, r: Executed): void {
    if (r.reply !== undefined) t.session.replyWithText(t.id, r.reply);
    else t.session.reply(t.id, r.results);
  }

  /**
   * Time `t` out `timeoutMs` after it was created. A timer can wait at most
   * 2^31−1 ms (Node fires a longer one at once), so a longer timeout (any
   * int64 is allowed) is waited out in steps.
   */
  private arm(t: Trigger, timeoutMs: number): void {
    const left = Math.ceil(t.created + timeoutMs - performance.now());
    const step = left > MAX_TIMER_MS;
    t.timer = setTimeout(
      () => this.onTimeout(t, timeoutMs, step),
      step ? MAX_TIMER_MS : Math.max(1, left),
    );
  }

  private onTimeout(t: Trigger, timeoutMs: number, step: boolean): void {
    t.timer = undefined;
    if (t.session.pending.get(t.idKey) !== t) return;
    if (step) {
      this.arm(t, timeoutMs);
      return;
    }
    const elapsed = Math.max(timeoutMs, Math.floor(performance.now() - t.created));
    this.runTriggers(t.served, [t], elapsed);
  }

  /**
   * After session `s` committed a transaction, finish the round as
   * ovsdb-server does: the sessions after `s` are serviced (flushed), the
   * waiting transactions run, then every session is serviced again.
   */
  private afterCommit(s: Session, served: Served): void {
    let after = false;
    for (const other of this.host.sessions()) {
      if (after) this.host.service(other);
      else if (other === s) after = true;
    }
    this.runTriggers(served, undefined, undefined);
  }

  /**
   * Re-run waiting transactions of `served` (all, or `only` in the first
   * pass), as ovsdb-server's trigger pass does; after each pass every
   * session is serviced in connection order: the replies of the
   * transactions that completed, then its pending updates. While a pass
   * commits something, another pass follows.
   */
  private runTriggers(
    served: Served,
    only: Trigger[] | undefined,
    elapsed: number | undefined,
  ): void {
    let candidates = only ?? [...served.triggers];
    let first = true;
    for (;;) {
      const done: { t: Trigger; r: Executed }[] = [];
      let committed = false;
      for (const t of candidates) {
        if (t.session.pending.get(t.idKey) !== t) continue;
        const r = this.execute(t, first && only !== undefined ? elapsed : undefined);
        if (r === undefined) continue;
        done.push({ t, r });
        if (r.committed) committed = true;
      }
      first = false;
      for (const s of this.host.sessions()) {
        for (const d of done) if (d.t.session === s) this.answer(d.t, d.r);
        this.host.service(s);
      }
      if (!committed) return;
      candidates = [...served.triggers];
    }
  }

  private forget(t: Trigger): void {
    if (t.timer !== undefined) clearTimeout(t.timer);
    t.timer = undefined;
    if (t.session.pending.get(t.idKey) === t) t.session.pending.delete(t.idKey);
    const i = t.served.triggers.indexOf(t);
    if (i >= 0) t.served.triggers.splice(i, 1);
  }
}
