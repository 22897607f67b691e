/**
 * Which server to use: the order in which to try the remotes, and the
 * verdict on each server's `_Server.Database` row (see `cluster.ts`),
 * remembering the highest Raft index seen so that a server behind what the
 * client already knows is skipped as stale.
 * @module
 */

import { compareInt64, type Int64 } from '../ovsdb/values/int64.js';
import { judgeServer, remoteOrder, type ServerDatabaseRow, type ServerVerdict } from './cluster.js';
import type { ConnectionConfig } from './options.js';

/** Orders the remotes and judges servers for one client. */
export class ServerSelector {
  /** The highest Raft index seen, and the cluster it belongs to. */
  private maxIndex: Int64 = 0;
  private indexCid: string | null = null;

  constructor(private readonly config: ConnectionConfig) {}

  /** The highest Raft index seen (0 for none). */
  get highestIndex(): Int64 {
    return this.maxIndex;
  }

  /** The remotes to try, starting after `after` (the server just lost). */
  order(after: string | undefined): string[] {
    return remoteOrder(this.config.remotes, after, this.config.shuffled);
  }

  /** Judge a server by its `_Server.Database` row (undefined: none), noting its Raft index when usable. */
  judge(row: ServerDatabaseRow | undefined): ServerVerdict {
    const { leaderOnly, clusterId, db } = this.config;
    if (row?.index !== null && row?.index !== undefined && row.model === 'clustered') {
      // Indexes of another (e.g. re-created) cluster are not comparable.
      if (row.cid !== this.indexCid) {
        this.indexCid = row.cid;
        this.maxIndex = 0;
      }
      const verdict = judgeServer(row, { leaderOnly, minIndex: this.maxIndex, cid: clusterId }, db);
      if (verdict.ok && compareInt64(row.index, this.maxIndex) > 0) this.maxIndex = row.index;
      return verdict;
    }
    return judgeServer(row, { leaderOnly, minIndex: 0, cid: clusterId }, db);
  }

  /** Accept servers with any Raft index again (every server was stale). */
  acceptLowerIndexes(): void {
    this.maxIndex = 0;
  }
}
