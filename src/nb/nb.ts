/**
 * {@link Nb}: the Northbound DSL over the database's handle. `nb.transact`
 * runs DSL operations in one atomic transaction, optionally waiting for
 * `ovn-northd` (`wait: 'sb'`) or the chassis (`wait: 'hv'`) to apply it;
 * `nb.show()` prints the topology.
 *
 * ```ts
 * import { connectNb, lsAdd, lspAdd, lrAdd, connectSwitchToRouter, lrNatAdd, match, aclAdd } from 'ovnkit/nb';
 *
 * const nb = await connectNb({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock' });
 * const { value: port } = await nb.transact((t) => {
 *   lsAdd(t, 'sw0', { otherConfig: { subnet: '10.0.0.0/24' } });
 *   lrAdd(t, 'lr0');
 *   connectSwitchToRouter(t, { switch: 'sw0', router: 'lr0', mac: '00:00:00:00:ff:01', networks: ['10.0.0.1/24'] });
 *   const port = lspAdd(t, 'sw0', 'web-1', { addresses: ['00:00:00:00:00:05 10.0.0.5'] });
 *   lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/24' });
 *   aclAdd(t, { switch: 'sw0' }, { direction: 'to-lport', priority: 1000, action: 'drop', match: match.outport('web-1') });
 *   return port;
 * }, { wait: 'sb' });
 * ```
 *
 * Every operation of one callback goes into one transaction:
 * `[wait?, insert Logical_Switch, insert Logical_Router, insert Logical_Router_Port,
 * mutate Logical_Router ports, insert Logical_Switch_Port, mutate Logical_Switch ports, …,
 * mutate NB_Global nb_cfg += 1, select NB_Global nb_cfg]`.
 * @module
 */

import type { DatabaseClient } from '../client/client.js';
import type { IndexesOption } from '../client/replica/replica.js';
import type { DatabaseModel } from '../ovsdb/schema/model.js';
import type { Int64 } from '../ovsdb/values/int64.js';
import { TransactionError } from '../ovsdb/wire/errors.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import { compileTransaction } from '../transactions/compile.js';
import type { OperationHandle, Resolved } from '../transactions/handles.js';
import type { Resolution, TransactionResult } from '../transactions/outcome.js';
import type { TransactOptions } from '../transactions/run.js';
import { NB, type NBTables } from './generated/model.js';
import type { NbModelTables } from './needs.js';
import { type ShowOptions, showNb } from './show.js';
import { NbTxn } from './txn.js';
import {
  bumpNbCfg,
  ensureNbGlobal,
  NbGlobalRaceError,
  type NbWaitOptions,
  type WaitTarget,
  waitForNbCfg,
} from './wait.js';

/** Options of {@link Nb.transact}: those of `transact`, plus waiting. */
export interface NbTransactOptions extends Omit<TransactOptions, 'dryRun'> {
  /**
   * After committing, wait until `ovn-northd` (`sb`) or every chassis
   * (`hv`) has applied the transaction (`ovn-nbctl --wait`).
   */
  readonly wait?: WaitTarget | undefined;
  /** The wait's timeout, ms (default 30 000). */
  readonly waitTimeoutMs?: number | undefined;
}

/** A committed DSL transaction. */
export interface NbTransactResult<V> {
  /** The callback's value (operation handles resolved). */
  readonly value: V;
  /** The operations of the attempt that committed. */
  readonly ops: readonly Operation[];
  /** How many times operations were sent. */
  readonly attempts: number;
  /** How many times the callback was replayed after a failed verify. */
  readonly replays: number;
  /** How the commit was learnt. */
  readonly resolution: Resolution;
  /** With `wait`: the `nb_cfg` value that was waited for (a 64-bit integer). */
  readonly nbCfg: Int64 | undefined;
}

/** What a DSL transaction callback returns to the transaction layer. */
interface Built<R> {
  readonly value: R;
  readonly cfg: OperationHandle<{ nb_cfg: Int64 }[]> | undefined;
}

/** A DSL transaction built but not sent. */
export interface NbDryRun<R> {
  /** The database (`OVN_Northbound`). */
  readonly database: string;
  /** The operations that would be sent. */
  readonly ops: readonly Operation[];
  /** The callback's value (refs are the UUIDs the inserts would get). */
  readonly value: R;
}

/**
 * The Northbound DSL over the handle of an `OVN_Northbound` database
 * ({@link connectNb}, or {@link createNb} over a handle you opened).
 *
 * @typeParam DB - the handle's table map: the bundled `NBTables` (7.18.0),
 *   or that of a model generated from the NB schema of the OVN in use. The
 *   callbacks of `transact` get an `NbTxn<DB>`, and each operation
 *   compiles only when `DB` has the tables and columns it needs.
 * @typeParam IX - the handle's client indexes.
 */
export class Nb<
  DB extends NbModelTables = NBTables,
  IX extends IndexesOption<DB> = Record<never, never>,
> {
  /**
   * @param client - the handle of an `OVN_Northbound` database: the
   *   replica (`get`, `rows`, `lookup`, `byIndex`, `on`, …), typed
   *   transactions (`transact(tx => …)`), status and locks.
   */
  constructor(readonly client: DatabaseClient<DB, IX>) {}

  /** The model (`NB`, or the one the handle was opened with). */
  get model(): DatabaseModel<DB> {
    return this.client.model;
  }

  /**
   * Build and run one transaction of DSL operations (see the module
   * documentation). The callback must be synchronous and may be replayed
   * (it must only read the replica through `t`). `NB_Global` is created when
   * missing, as `ovn-nbctl` does, when the handle monitors it (`wait` needs it).
   * @throws the DSL's errors (before anything is sent), among them
   *   `TableNotMonitoredError` naming a table an operation reads that the
   *   handle does not monitor (`NB_Global` for `wait`) and `SchemaDriftError`
   *   for one the server lacks; `DuplicateNameError`
   *   when a server-side name check failed; `TransactionError` and the other
   *   errors of `transact`; `NbWaitTimeoutError` when the wait timed out
   *   (the transaction did commit).
   */
  async transact<R>(
    build: (t: NbTxn<DB>) => R,
    options: NbTransactOptions = {},
  ): Promise<NbTransactResult<Resolved<R>>> {
    const wait = options.wait;
    if (wait !== undefined && wait !== 'sb' && wait !== 'hv') {
      throw new TypeError(`wait must be "sb" or "hv", got ${String(wait)}`);
    }
    let result: TransactionResult<Resolved<Built<R>>> | undefined;
    for (let attempt = 0; result === undefined; attempt++) {
      // The guards of the last attempt built: a failed one names the DSL's error.
      const guards: { of?: ReadonlyMap<number, () => Error> | undefined } = {};
      try {
        // (The options of `wait` are left for the transaction to ignore: no copy on every write.)
        result = await this.client.transact((tx): Built<R> => {
          const t = new NbTxn<DB>(tx, this.client);
          // NB_Global's columns are the same in every model: the bundled view of it serves.
          ensureNbGlobal(bundled(t));
          const value = build(t);
          const cfg = wait === undefined ? undefined : bumpNbCfg(bundled(t));
          const map = t.guardErrors();
          guards.of = map.size === 0 ? undefined : map;
          return { value, cfg };
        }, options);
      } catch (e) {
        const mapped = e instanceof TransactionError ? guards.of?.get(e.opIndex)?.() : undefined;
        if (mapped === undefined) throw e;
        mapped.cause = e;
        if (!(mapped instanceof NbGlobalRaceError) || attempt >= 2) throw mapped;
        // Another client created NB_Global meanwhile: wait for it, and run again.
        await this.bundled.waitFor('NB_Global', () => true, {
          timeoutMs: 5000,
          signal: options.signal,
        });
      }
    }
    const rows = result.value.cfg;
    const nbCfg = rows === undefined ? undefined : rows[0]?.nb_cfg;
    if (wait !== undefined && nbCfg !== undefined) {
      await waitForNbCfg(this.bundled, wait, nbCfg, {
        timeoutMs: options.waitTimeoutMs,
        signal: options.signal,
      });
    }
    return {
      value: result.value.value,
      ops: result.ops,
      attempts: result.attempts,
      replays: result.replays,
      resolution: result.resolution,
      nbCfg,
    };
  }

  /**
   * Build a transaction without sending it: the operations it would send.
   *
   * ```ts
   * const { ops } = nb.dryRun((t) => lsAdd(t, 'sw0'));
   * // [{"op":"wait","table":"Logical_Switch",…},{"op":"insert","table":"Logical_Switch","row":{"name":"sw0"},…}]
   * ```
   */
  dryRun<R>(build: (t: NbTxn<DB>) => R): NbDryRun<R> {
    const { compiled, value } = compileTransaction(
      this.client.model,
      (tx) => {
        const t = new NbTxn<DB>(tx, this.client);
        ensureNbGlobal(bundled(t));
        return build(t);
      },
      { replica: this.client },
    );
    return { database: compiled.database, ops: compiled.ops, value };
  }

  /**
   * Wait until everything committed so far is applied by `ovn-northd` (`sb`)
   * or every chassis (`hv`): a transaction that only increments `nb_cfg`,
   * then the wait (`ovn-nbctl --wait=sb sync`). Resolves with the `nb_cfg`
   * value reached.
   * @throws NbWaitTimeoutError when it does not happen within the timeout.
   */
  async waitFor(target: WaitTarget, options: NbWaitOptions = {}): Promise<Int64> {
    const result = await this.transact(() => undefined, {
      wait: target,
      waitTimeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    return result.nbCfg!;
  }

  /** The topology as text, like `ovn-nbctl show` (see `showNb`). */
  show(options: ShowOptions = {}): string {
    return showNb(this.bundled, options);
  }

  /** Close the handle underneath: pending work is rejected with `ClientClosedError`. */
  close(): Promise<void> {
    return this.client.close();
  }

  /** The handle, typed by the bundled model (for `NB_Global` and `show`, which read columns every model has). */
  private get bundled(): DatabaseClient<NBTables> {
    return this.client as unknown as DatabaseClient<NBTables>;
  }
}

/** The same transaction, typed by the bundled model (for `NB_Global`, whose columns every model has). */
function bundled<DB extends NbModelTables>(t: NbTxn<DB>): NbTxn {
  return t as unknown as NbTxn;
}

/**
 * The Northbound DSL over the handle of an `OVN_Northbound` database you
 * opened (`openDatabase({ model: NB, … })`, or with a model generated from
 * the schema of the OVN in use, `ovnkit-codegen --schema
 * /usr/share/ovn/ovn-nb.ovsschema`, whose `NbTxn<DB>` the operations then
 * take): for a program that shares one handle between the DSL and other
 * users. {@link connectNb} opens the handle too.
 *
 * The handle may monitor only some tables (`tables`): each operation reads
 * the tables listed for it in `docs/nb-dsl.md`, and fails at once with
 * `TableNotMonitoredError` when one is not monitored. `NB_Global` is needed
 * only for `wait`.
 * @example
 * ```ts
 * import { openDatabase } from 'ovnkit';
 * import { createNb, lsAdd, lspAdd, NB } from 'ovnkit/nb';
 *
 * const db = await openDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * const nb = createNb(db);
 * const { value: port } = await nb.transact((t) => lspAdd(t, lsAdd(t, 'sw0'), 'sw0-p1'), {
 *   wait: 'sb',
 * });
 * console.log(db.get('Logical_Switch_Port', port)?.name, nb.show());
 * ```
 * @throws TypeError when the handle's model is not `OVN_Northbound`.
 */
export function createNb<DB extends NbModelTables, IX extends IndexesOption<DB>>(
  client: DatabaseClient<DB, IX>,
): Nb<DB, IX> {
  if (client?.model?.name !== NB.name) {
    throw new TypeError(
      `createNb: the client's model must be ${NB.name}, got ${String(client?.model?.name)}`,
    );
  }
  return new Nb(client);
}
