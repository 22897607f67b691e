/**
 * {@link Nb}: the Northbound DSL bound to a database client. `nb.transact`
 * runs DSL operations in one atomic transaction, optionally waiting for
 * `ovn-northd` (`wait: 'sb'`) or the chassis (`wait: 'hv'`) to apply it;
 * `nb.show()` prints the topology.
 *
 * ```ts
 * import { connectDatabase } from 'ovnkit/client';
 * import { NB, createNb, lsAdd, lspAdd, lrAdd, connectSwitchToRouter, lrNatAdd, match, aclAdd } from 'ovnkit/nb';
 *
 * const client = connectDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * await client.ready;
 * const nb = createNb(client);
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

import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import type { Int64 } from '../ovsdb/values/int64.js';
import { TransactionError } from '../ovsdb/wire/errors.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { TransactingClient } from '../transactions/client-executor.js';
import { clientExecutor } from '../transactions/client-executor.js';
import { compileTransaction } from '../transactions/compile.js';
import type { TransactionResult, TransactOptions } from '../transactions/execute.js';
import type { OperationHandle, Resolved } from '../transactions/handles.js';
import type { Resolution } from '../transactions/outcome.js';
import { createTransactor, type Transactor } from '../transactions/transactor.js';
import { NB, type NBTables } from './generated/model.js';
import type { NbModelTables } from './needs.js';
import { type ShowOptions, showNb } from './show.js';
import { NbTxn } from './txn.js';
import {
  bumpNbCfg,
  ensureNbGlobal,
  NbGlobalRaceError,
  type NbWaitClient,
  type NbWaitOptions,
  type WaitTarget,
  waitForNbCfg,
} from './wait.js';

/**
 * What the DSL needs of a database client (`connectDatabase({ model, … })`
 * provides it, for the bundled `NB` or any other NB model): transactions,
 * replica reads and waits. The view uses the client's indexes and
 * schema-drift report when it has them (`TransactionViewReaderExtras`).
 */
export interface NbClient<DB extends TableMap = NBTables>
  extends TransactingClient<DB>,
    NbWaitClient<DB> {}

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
 * The Northbound DSL over one database client. Create it with
 * {@link createNb} (or {@link connectNb}).
 *
 * @typeParam DB - the client's model's table map: the bundled `NBTables`
 *   (7.18.0), or that of a model generated from the NB schema of the OVN in
 *   use. The callbacks of `transact` get an `NbTxn<DB>`, and each operation
 *   compiles only when `DB` has the tables and columns it needs.
 */
export class Nb<DB extends NbModelTables = NBTables> {
  /** Transactions over the client. */
  readonly db: Transactor<DB>;

  /** @param client - a database client of an `OVN_Northbound` model. */
  constructor(readonly client: NbClient<DB>) {
    this.db = createTransactor(clientExecutor(client));
  }

  /** The model (`NB`, or the one the client was given). */
  get model(): DatabaseModel<DB> {
    return this.client.model;
  }

  /**
   * Build and run one transaction of DSL operations (see the module
   * documentation). The callback must be synchronous and may be replayed
   * (it must only read the replica through `t`). `NB_Global` is created when
   * missing, as `ovn-nbctl` does, when the client monitors it (`wait` needs it).
   * @throws the DSL's errors (before anything is sent), among them
   *   `TableNotMonitoredError` naming a table an operation reads that the
   *   client does not monitor (`NB_Global` for `wait`) and `SchemaDriftError`
   *   for one the server lacks; `DuplicateNameError`
   *   when a server-side name check failed; `TransactionError` and the other
   *   errors of `transact`; `NbWaitTimeoutError` when the wait timed out
   *   (the transaction did commit).
   */
  async transact<R>(
    build: (t: NbTxn<DB>) => R,
    options: NbTransactOptions = {},
  ): Promise<NbTransactResult<Resolved<R>>> {
    const { wait, waitTimeoutMs, ...txOptions } = options;
    if (wait !== undefined && wait !== 'sb' && wait !== 'hv') {
      throw new TypeError(`wait must be "sb" or "hv", got ${String(wait)}`);
    }
    let result: TransactionResult<Resolved<Built<R>>> | undefined;
    for (let attempt = 0; result === undefined; attempt++) {
      let last: NbTxn<DB> | undefined;
      try {
        result = await this.run(build, wait !== undefined, txOptions, (t) => {
          last = t;
        });
      } catch (e) {
        const mapped = e instanceof TransactionError ? last?.guardError(e.opIndex) : undefined;
        if (mapped === undefined) throw e;
        mapped.cause = e;
        if (!(mapped instanceof NbGlobalRaceError) || attempt >= 2) throw mapped;
        // Another client created NB_Global meanwhile: wait for it, and run again.
        await this.bundledClient.waitFor('NB_Global', () => true, {
          timeout: 5000,
          signal: options.signal,
        });
      }
    }
    const rows = result.value.cfg;
    const nbCfg = rows === undefined ? undefined : rows[0]?.nb_cfg;
    if (wait !== undefined && nbCfg !== undefined) {
      await waitForNbCfg(this.bundledClient, wait, nbCfg, {
        timeoutMs: waitTimeoutMs,
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

  private run<R>(
    build: (t: NbTxn<DB>) => R,
    bump: boolean,
    options: Omit<TransactOptions, 'dryRun'>,
    onTxn: (t: NbTxn<DB>) => void,
  ): Promise<TransactionResult<Resolved<Built<R>>>> {
    return this.db.transact((tx): Built<R> => {
      const t = new NbTxn<DB>(tx, this.client);
      onTxn(t);
      // NB_Global's columns are the same in every model: the bundled view of it serves.
      ensureNbGlobal(bundled(t));
      const value = build(t);
      const cfg = bump ? bumpNbCfg(bundled(t)) : undefined;
      return { value, cfg };
    }, options);
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
    return showNb(this.bundledClient, options);
  }

  /** The client, typed by the bundled model (for `NB_Global` and `show`, which read columns every model has). */
  private get bundledClient(): NbClient {
    return this.client as unknown as NbClient;
  }
}

/** The same transaction, typed by the bundled model (for `NB_Global`, whose columns every model has). */
function bundled(t: NbTxn<NbModelTables>): NbTxn {
  return t as unknown as NbTxn;
}

/**
 * Bind the DSL to a database client of an `OVN_Northbound` model: the
 * bundled `NB`, or one generated from the schema of the OVN in use
 * (`ovnkit-codegen --schema /usr/share/ovn/ovn-nb.ovsschema`), whose
 * `NbTxn<DB>` the operations then take.
 *
 * The client may monitor only some tables (`tables`): each operation reads
 * the tables listed for it in `docs/nb-dsl.md`, and fails at once with
 * `TableNotMonitoredError` when one is not monitored. `NB_Global` is needed
 * only for `wait`.
 * @example
 * ```ts
 * import { createNb, lsAdd, lspAdd, NB } from 'ovnkit/nb';
 * import { connectDatabase } from 'ovnkit/client';
 *
 * const client = connectDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * await client.ready;
 * const nb = createNb(client);
 * const { value: port } = await nb.transact((t) => lspAdd(t, lsAdd(t, 'sw0'), 'sw0-p1'), {
 *   wait: 'sb',
 * });
 * console.log(client.get('Logical_Switch_Port', port)?.name, nb.show());
 * ```
 * @throws TypeError when the client's model is not `OVN_Northbound`.
 */
export function createNb<DB extends NbModelTables>(client: NbClient<DB>): Nb<DB> {
  if (client?.model?.name !== NB.name) {
    throw new TypeError(
      `createNb: the client's model must be ${NB.name}, got ${String(client?.model?.name)}`,
    );
  }
  return new Nb(client);
}
