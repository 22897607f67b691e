/**
 * Execution of one `transact` request (RFC 7047 §4.1.3, §5.2) with ovsdb-server
 * 3.1's semantics, result shapes and error wording.
 *
 * ## Operations
 * `insert` (with `uuid-name` and the OVS `uuid` extension), `select` (with the
 * OVS `sort` extension; rows are distinct over the selected columns unless
 * `_uuid` is among them), `update`, `mutate`, `delete`, `wait`, `commit`,
 * `abort`, `comment` and `assert`. A named UUID may be used before the
 * `insert` that defines it (forward reference); a name never inserted stands
 * for a fresh UUID that no row has.
 *
 * ## Results
 * One entry per operation: `{"uuid": ["uuid", …]}`, `{"rows": […]}`,
 * `{"count": n}` or `{}`. The first failing operation's entry is its error and
 * every later entry is `null`. When every operation succeeds but the commit
 * fails (referential integrity, `maxRows`, weak-reference constraints, unique
 * indexes), the commit's error is appended as an extra entry. On any error the
 * database is unchanged.
 *
 * ## Commit
 * In ovsdb-server's order: drop rows that did not really change; count strong
 * references and reject dangling ones or the deletion of a referenced row;
 * delete unreferenced rows of non-root tables (recursively); check `maxRows`;
 * remove weak references to deleted rows and newly added weak references to
 * rows that do not exist (rejecting a column left smaller than its `min`);
 * check unique indexes; give every changed row a new `_version`. Then, before
 * anything is changed, the caller's `beforeCommit` gets what will change (the
 * server makes the commit's file record and reply there); an {@link OpError}
 * it throws refuses the transaction, appended as the commit's error.
 *
 * Weak references follow ovsdb-server's row-by-row pass exactly, including its
 * quirk: a row changed by the transaction in a table touched before the table
 * of a row it weakly references keeps the reference when that row is deleted
 * (the reference is left dangling). Within one table ovsdb-server's order is
 * its hash order of the random row UUIDs, so there the outcome cannot be
 * predicted; the engine uses the order in which the transaction touched rows.
 *
 * ## `wait` and blocking
 * A `wait` whose condition does not hold fails with "timed out" when its
 * `timeout` has elapsed (`timeout: 0` fails at once). Otherwise ovsdb-server
 * keeps the request pending and re-runs it after later commits; the engine
 * returns `{ blocked: true, timeoutMs }` instead and changes nothing, so that
 * the network layer can re-run the request (passing `elapsedMs`) after each
 * commit and when `timeoutMs` has passed. `timeoutMs` is the smallest `timeout`
 * among the request's `wait` operations (`Infinity` when none has one).
 *
 * Databases whose name starts with `_` (such as `_Server`) are read-only:
 * writing operations fail with "not allowed".
 *
 * Integers range over int64 in canonical form (a `bigint` beyond
 * ±(2^53−1)); `1.0` is an integer, as ovsdb-server's JSON reader takes it.
 *
 * ## Known differences from ovsdb-server
 * - A negative integer `*=` 0 crashes ovsdb-server 3.1 (a division by zero
 *   in its overflow test); here the result is 0.
 * @module
 */

import { applyTxn, precommit, txnChanges } from './commit.js';
import type { Database } from './database.js';
import { OpError, type OpErrorJson } from './op-error.js';
import { OP_ID, OpParser } from './op-parser.js';
import { EXECUTORS, type Exec, READ_ONLY, type Result } from './operations.js';
import { shashOrder } from './ovs-hash.js';
import { Txn } from './staging.js';
import type { Row } from './table-store.js';

/** Options of one `transact` call. */
export interface EngineTransactOptions {
  /** Whether the session owns lock `name` (for `assert`). Without it, no lock is owned. */
  readonly ownsLock?: ((name: string) => boolean) | undefined;
  /** Milliseconds since the request first arrived (for re-running a blocked request). */
  readonly elapsedMs?: number | undefined;
  /**
   * When false, an unsatisfied `wait` that would block fails instead with
   * "not supported" ("triggers not supported"), as ovsdb-server does where it
   * cannot wait. Defaults to true.
   */
  readonly canBlock?: boolean | undefined;
  /**
   * Only read-only operations: others fail with "not allowed", as on an
   * ovsdb-server connection whose remote is `read_only`.
   */
  readonly readOnly?: boolean | undefined;
  /** The RBAC role of the client (see `rbac.ts`); none or empty: no restriction. */
  readonly role?: string | undefined;
  /** The client's identity for RBAC (its TLS certificate's common name); none: every write is refused. */
  readonly peerId?: string | undefined;
  /**
   * Called once the transaction passed every check and before it changes
   * anything, with what it will change, whether it is durable, and the
   * reply's results: what must be ready before the commit is made there
   * (its record in a database file, its reply). An `OpError` it
   * throws refuses the transaction instead (appended to the results as a
   * commit error); the database is then unchanged.
   */
  readonly beforeCommit?:
    | ((changes: TxnChanges, durable: boolean, results: readonly unknown[]) => void)
    | undefined;
}

/** One committed row change: an insert (`old` null), a delete (`new` null) or a modification. */
export interface RowChange {
  readonly table: string;
  readonly uuid: string;
  readonly old: Row | null;
  readonly new: Row | null;
  /** The columns whose value changed (every column for inserts and deletes; `_version` included). */
  readonly changed: readonly string[];
}

/** The changes one successful commit made. */
export interface TxnChanges {
  /** Row changes, grouped by table in the order the transaction touched the tables. */
  readonly rows: readonly RowChange[];
  /** The `comment` operations' texts, joined by newlines, if any. */
  readonly comment?: string | undefined;
}

/** The outcome of a request that ran to completion (successfully or not). */
export interface TransactResult {
  readonly blocked?: false | undefined;
  /** The reply's result array. */
  readonly results: unknown[];
  /** @internal The committed changes; null when the transaction failed or changed nothing. */
  readonly changes: TxnChanges | null;
  /** Whether a `commit` operation asked for a durable commit. */
  readonly durable: boolean;
}

/** A request that must wait: re-run it after later commits or once `timeoutMs` has elapsed. */
export interface TransactBlocked {
  readonly blocked: true;
  /** The smallest `timeout` of the request's `wait` operations, `Infinity` if none. */
  readonly timeoutMs: number;
}

/** What {@link Database.transact} returns. */
export type TransactOutcome = TransactResult | TransactBlocked;

/**
 * Run one `transact` request against `db`. `ops` are the params after the
 * database name. See the module documentation for the semantics.
 */
export function executeTransaction(
  db: Database,
  ops: readonly unknown[],
  options: EngineTransactOptions,
): TransactOutcome {
  db.tick();
  const x: Exec = {
    db,
    txn: new Txn(db),
    symtab: new Map(),
    options,
    durable: false,
    timeoutMs: Number.POSITIVE_INFINITY,
    comments: [],
  };
  const results: unknown[] = [];
  const n = ops.length;
  let failed: OpErrorJson | undefined;
  for (let i = 0; i < n; i++) {
    const p = new OpParser(ops[i], `ovsdb operation ${i + 1} of ${n}`, shashOrder);
    const op = p.member('op', OP_ID) as string | undefined;
    const result: Result = {};
    let error: OpError | undefined;
    if (op !== undefined) {
      const executor = Object.hasOwn(EXECUTORS, op) ? EXECUTORS[op] : undefined;
      if (executor !== undefined) {
        try {
          executor(x, p, result);
        } catch (e) {
          if (!(e instanceof OpError)) throw e;
          error = e;
        }
      } else {
        p.raise(`No operation "${op}"`);
      }
    }
    const parseError = p.finish();
    if (parseError !== undefined) error = parseError;
    if (error === undefined && op !== undefined && !READ_ONLY.has(op)) {
      if (options.readOnly === true) {
        error = new OpError(
          'not allowed',
          `${op} operation not allowed when database server is in read only mode`,
        );
      } else if (db.schema.name[0] === '_') {
        error = new OpError(
          'not allowed',
          `${op} operation not allowed on table in reserved database ${db.schema.name}`,
        );
      }
    }
    if (error !== undefined) {
      if (error.error === 'not supported' && options.canBlock !== false) {
        return { blocked: true, timeoutMs: x.timeoutMs };
      }
      failed = error.toJson();
      results.push(failed);
      break;
    }
    results.push(result);
  }
  while (results.length < n) results.push(null);
  if (failed !== undefined) return { results, changes: null, durable: x.durable };
  try {
    precommit(x.txn);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    results.push(e.toJson());
    return { results, changes: null, durable: x.durable };
  }
  const comment = x.comments.length > 0 ? x.comments.join('\n') : undefined;
  const changes = txnChanges(x.txn, comment);
  if (changes !== null && options.beforeCommit !== undefined) {
    try {
      options.beforeCommit(changes, x.durable, results);
    } catch (e) {
      if (!(e instanceof OpError)) throw e;
      results.push(e.toJson());
      return { results, changes: null, durable: x.durable };
    }
  }
  applyTxn(x.txn);
  return { results, changes, durable: x.durable };
}
