/**
 * {@link createTestCluster}: a three-member OVSDB cluster simulated in
 * process, for testing how a client follows a cluster (leader-only
 * failover, stale and disconnected members, relays, resuming with
 * `monitor_cond_since`) without starting processes.
 *
 * One in-memory server holds the database; each member is a view of it
 * with its own `_Server` database, whose row says what a Raft member's row
 * says (`clustered`, `leader`, `connected`, `index`, cluster and server
 * ids) and changes when the test says so. All members share one state and
 * one transaction history, as the members of a Raft cluster share one log:
 * a client that fails over resumes with `found: true`, unless the test
 * made the history go ({@link TestCluster.forgetHistory}).
 * @module
 */

import type { DatabaseModel, TableMap } from '../../ovsdb/schema/model.js';
import type { Dialer } from '../../ovsdb/transport/dial.js';
import type { Int64 } from '../../ovsdb/values/int64.js';
import { newUuid } from '../../ovsdb/values/uuid.js';
import type { OvsdbServer, ServerView } from '../../server/server.js';
import {
  type SeedDatabaseOptions,
  type SeededDatabase,
  startSeededServer,
  TestServer,
} from './database.js';
import type { NameBook } from './names.js';
import type { CheckedSeed, NamesOf, SeedShape } from './seed.js';
import type { TestSession } from './session.js';

/** What a member's `_Server` row can say (see `_Server.Database` in `ovsdb-server(5)`). */
export interface MemberState {
  /** `clustered` (the default) or `relay` (a relay of the cluster: never leader). */
  readonly model?: 'clustered' | 'relay' | undefined;
  /** Whether it is the leader. */
  readonly leader?: boolean | undefined;
  /** Whether it is connected to the cluster (a client leaves a disconnected member). */
  readonly connected?: boolean | undefined;
  /** Its Raft log index (a client skips a member whose index is below one it has seen). */
  readonly index?: Int64 | undefined;
  /** false: it has not joined the cluster yet (its row has no schema). */
  readonly joined?: false | undefined;
}

/** One member of a {@link TestCluster}. */
export interface TestClusterMember {
  /** `m0`, `m1`, …: also the label of its connections. */
  readonly name: string;
  /** The remote a client dials (with the cluster's dialer): `unix:m0`, … */
  readonly remote: string;
  /** Its server id (`sid`). */
  readonly sid: string;
  /** True unless stopped. */
  readonly running: boolean;
  /** Its connections open now. */
  readonly sessions: readonly TestSession[];
  /** Change its `_Server` row; its clients' `_Server` monitors see the change at once. */
  set(state: MemberState): void;
  /** Stop it, as a killed process: its connections drop and new ones are refused. */
  stop(): void;
  /** Start it again (with the state it had). */
  start(): void;
}

/** A simulated cluster: a seeded database served by several members. */
export interface TestCluster<DB extends TableMap, N = Record<never, never>>
  extends SeededDatabase<DB, N> {
  /** The members, in order. */
  readonly members: readonly TestClusterMember[];
  /** Every member's remote, for a client's `remotes`. */
  readonly remotes: readonly string[];
  /** The cluster id (`cid`). */
  readonly cid: string;
  /** Make member `index` the leader and every other a follower (undefined: no leader). */
  setLeader(index: number | undefined): void;
  /**
   * Forget the transaction history, as a cluster whose members restarted
   * from a snapshot: the next `monitor_cond_since` from an earlier
   * transaction answers `found: false` with the whole database.
   */
  forgetHistory(): void;
}

/** Options of {@link createTestCluster}. */
export interface TestClusterOptions extends SeedDatabaseOptions {
  /** How many members (default 3). */
  readonly members?: number | undefined;
  /** Which member leads at first (default 0). */
  readonly leader?: number | undefined;
}

class Cluster<DB extends TableMap, N> extends TestServer<DB, N> implements TestCluster<DB, N> {
  readonly cid = newUuid();
  readonly members: TestClusterMember[] = [];
  private readonly views = new Map<string, ServerView>();

  constructor(
    model: DatabaseModel<DB>,
    server: OvsdbServer,
    book: NameBook,
    options: TestClusterOptions,
  ) {
    super(model, server, book);
    const count = options.members ?? 3;
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`createTestCluster: members must be a positive integer, not ${count}`);
    }
    const leader = options.leader ?? 0;
    for (let i = 0; i < count; i++) this.members.push(this.member(`m${i}`, i === leader));
  }

  private member(name: string, leader: boolean): TestClusterMember {
    const view: ServerView = this.server.serverView();
    this.views.set(`unix:${name}`, view);
    const sid = newUuid();
    const db = this.model.name;
    view.set(db, { model: 'clustered', leader, connected: true, index: 1, cid: this.cid, sid });
    let running = true;
    const self = this;
    return {
      name,
      remote: `unix:${name}`,
      sid,
      get running() {
        return running;
      },
      get sessions() {
        return self.sessions.filter((s) => s.label === name);
      },
      set(state) {
        view.set(db, {
          model: state.model,
          leader: state.model === 'relay' ? false : state.leader,
          connected: state.connected,
          index: state.index,
          schema: state.joined === false ? null : undefined,
        });
      },
      stop() {
        running = false;
        for (const s of self.sessions) if (s.label === name) s.drop();
      },
      start() {
        running = true;
      },
    };
  }

  override readonly dial: Dialer = async (remote) => {
    const m = this.members.find((x) => x.remote === remote);
    if (m === undefined) {
      throw new Error(`${remote}: not a member of the test cluster (${this.remotes.join(', ')})`);
    }
    if (!m.running) throw new Error(`${remote}: connection refused (the member is stopped)`);
    return this.openSession(remote, this.views.get(remote)).dialed;
  };

  get remotes(): readonly string[] {
    return this.members.map((m) => m.remote);
  }

  setLeader(index: number | undefined): void {
    this.members.forEach((m, i) => {
      if (i !== index) m.set({ leader: false });
    });
    if (index !== undefined) this.members[index]?.set({ leader: true });
  }

  forgetHistory(): void {
    this.server.forgetHistory(this.model.name);
  }
}

/**
 * Start a simulated cluster of `options.members` (default 3) members
 * serving `model`, seeded with `seed`, member `options.leader` (default 0)
 * the leader. Give a client `remotes: cluster.remotes, dial: cluster.dial`.
 * @example
 * ```ts
 * import { connectDatabase } from 'ovnkit/client';
 * import { NB } from 'ovnkit/nb';
 * import { createTestCluster } from 'ovnkit/testing';
 *
 * const cluster = await createTestCluster(NB, { Logical_Switch: { sw0: { name: 'sw0' } } });
 * const client = connectDatabase({ remotes: [...cluster.remotes], dial: cluster.dial, model: NB });
 * await client.ready;
 * cluster.setLeader(1); // the client leaves m0 and resumes on m1 (found: true)
 * await client.close();
 * await cluster.close();
 * ```
 */
export async function createTestCluster<
  DB extends TableMap,
  const S extends SeedShape<DB> = Record<never, never>,
>(
  model: DatabaseModel<DB>,
  seed?: S & CheckedSeed<DB, S>,
  options: TestClusterOptions = {},
): Promise<TestCluster<DB, NamesOf<S>>> {
  const { server, book } = await startSeededServer(model, seed, options);
  try {
    return new Cluster<DB, NamesOf<S>>(model, server, book, options);
  } catch (e) {
    await server.close();
    throw e;
  }
}
