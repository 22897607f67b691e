/**
 * Choosing a server of a cluster from its `_Server.Database` row, the way
 * ovsdb-cs does: a client first monitors `_Server.Database` (where
 * `name == <db>`), then keeps the server only when:
 *
 * - the database is there and has a schema (a clustered server that has not
 *   joined yet has an empty `schema`);
 * - for a clustered database: the server is `connected` to the cluster; with
 *   leader-only, it is the `leader`; and its Raft `index` is not lower than
 *   the highest one the client has seen (a lower one means a stale server,
 *   behind what the client already knows).
 *
 * A relay (`model` `relay`) is judged as ovsdb-cs judges it: never under
 * leader-only (a relay is no cluster's leader; writes through it are
 * forwarded), and not while it has lost its source (`connected` false,
 * so its data is not kept current); otherwise it is used. Standalone
 * databases always report `leader` true. The client re-judges the row on
 * every change, so it leaves a server that loses leadership, its cluster
 * or its relay source.
 * @module
 */

import {
  type Database,
  type DatabaseColumn,
  DatabaseModelEnum,
} from '../ovsdb/schema/generated/server/index.js';
import type { Int64 } from '../ovsdb/values/int64.js';
import type { Uuid } from '../ovsdb/values/uuid.js';
import type { MonitorRequests, WireRow } from '../ovsdb/wire/wire.js';

/**
 * A `_Server.Database` row: the row type of the generated `_Server` model
 * without `_uuid` and `_version`. `schema` is the database's schema JSON text
 * (null while a clustered server has not joined); `cid` (the cluster ID),
 * `sid` (the server ID) and `index` (the Raft log index applied) are set for
 * clustered databases only.
 */
export type ServerDatabaseRow = Omit<Database, '_uuid' | '_version'>;

/** The columns of `_Server.Database` the client monitors. */
export const SERVER_DATABASE_COLUMNS = [
  'name',
  'model',
  'connected',
  'leader',
  'schema',
  'cid',
  'sid',
  'index',
] as const satisfies readonly DatabaseColumn[];

/** The monitor request for database `db`'s `_Server.Database` row. */
export function serverMonitorRequest(db: string): MonitorRequests {
  return {
    Database: { columns: SERVER_DATABASE_COLUMNS, where: [['name', '==', db]] },
  };
}

/** What {@link judgeServer} needs to know about the client. */
export interface ServerChoice {
  /** Only a cluster's leader will do. */
  readonly leaderOnly: boolean;
  /** The highest Raft index seen so far on any server (0 for none); a 64-bit integer. */
  readonly minIndex: Int64;
  /** When set, the cluster must have this ID. */
  readonly cid?: string | undefined;
}

/** The outcome of {@link judgeServer}: usable, or why not. */
export type ServerVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** Machine-readable reason. */
      readonly code:
        | 'no-database'
        | 'not-joined'
        | 'disconnected'
        | 'not-leader'
        | 'stale'
        | 'wrong-cluster';
      /** A sentence for logs. */
      readonly reason: string;
    };

/**
 * Judge a server by its `_Server.Database` row for the client's database
 * (undefined when the server has no such row).
 */
export function judgeServer(
  row: ServerDatabaseRow | undefined,
  choice: ServerChoice,
  db: string,
): ServerVerdict {
  if (row === undefined) {
    return { ok: false, code: 'no-database', reason: `the server has no database ${db}` };
  }
  const relay = row.model === 'relay';
  if (row.schema === null || row.schema === '') {
    return {
      ok: false,
      code: 'not-joined',
      reason: `database ${db} has no schema yet (the server has not ${relay ? 'reached its relay source' : 'joined its cluster'})`,
    };
  }
  if (relay) {
    if (!row.connected) {
      return {
        ok: false,
        code: 'disconnected',
        reason: `the relay is not connected to its source of ${db}`,
      };
    }
    if (choice.leaderOnly) {
      return {
        ok: false,
        code: 'not-leader',
        reason: `the server is a relay of ${db}, never its cluster's leader`,
      };
    }
    return { ok: true };
  }
  if (row.model !== 'clustered') return { ok: true };
  if (!row.connected) {
    return {
      ok: false,
      code: 'disconnected',
      reason: `the server is not connected to the ${db} cluster`,
    };
  }
  if (choice.leaderOnly && !row.leader) {
    return { ok: false, code: 'not-leader', reason: `the server is not the ${db} cluster leader` };
  }
  if (choice.cid !== undefined && row.cid !== null && row.cid !== choice.cid) {
    return {
      ok: false,
      code: 'wrong-cluster',
      reason: `the server belongs to cluster ${row.cid}, not ${choice.cid}`,
    };
  }
  if (row.index !== null && row.index < choice.minIndex) {
    return {
      ok: false,
      code: 'stale',
      reason: `the server is stale: its Raft index ${row.index} is below ${choice.minIndex}, already seen`,
    };
  }
  return { ok: true };
}

function optional(v: unknown): unknown {
  if (Array.isArray(v) && v[0] === 'set') {
    const elems = v[1] as unknown[];
    return elems.length === 0 ? null : elems[0];
  }
  return v;
}

function uuidOrNull(v: unknown): Uuid | null {
  const x = optional(v);
  return Array.isArray(x) && x[0] === 'uuid' && typeof x[1] === 'string' ? (x[1] as Uuid) : null;
}

const MODELS: ReadonlySet<string> = new Set(DatabaseModelEnum);

/**
 * Decode a wire `_Server.Database` row (as monitored with
 * {@link SERVER_DATABASE_COLUMNS}; omitted columns take their defaults),
 * merged over `previous` for `modify` changes.
 */
export function decodeServerDatabaseRow(
  wire: WireRow,
  previous?: ServerDatabaseRow,
): ServerDatabaseRow {
  const has = (k: string) => Object.hasOwn(wire, k);
  const base: ServerDatabaseRow = previous ?? {
    name: '',
    model: 'standalone',
    connected: false,
    leader: false,
    schema: null,
    cid: null,
    sid: null,
    index: null,
  };
  const model = has('model') ? String(wire['model']) : base.model;
  const knownModel = MODELS.has(model) ? (model as ServerDatabaseRow['model']) : 'standalone';
  const schema = has('schema') ? optional(wire['schema']) : base.schema;
  const index = has('index') ? optional(wire['index']) : base.index;
  return {
    name: has('name') ? String(wire['name']) : base.name,
    model: knownModel,
    connected: has('connected') ? wire['connected'] === true : base.connected,
    leader: has('leader') ? wire['leader'] === true : base.leader,
    schema: typeof schema === 'string' ? schema : null,
    cid: has('cid') ? uuidOrNull(wire['cid']) : base.cid,
    sid: has('sid') ? uuidOrNull(wire['sid']) : base.sid,
    index: typeof index === 'number' || typeof index === 'bigint' ? index : null,
  };
}

/**
 * The order to try `remotes` in: rotated so that the one after `after` comes
 * first (so a client that lost a server tries the others before it again),
 * optionally shuffled first.
 */
export function remoteOrder(
  remotes: readonly string[],
  after: string | undefined,
  shuffled: readonly string[] | undefined,
): string[] {
  const list = shuffled ?? remotes;
  const i = after === undefined ? -1 : list.indexOf(after);
  if (i < 0) return [...list];
  return [...list.slice(i + 1), ...list.slice(0, i + 1)];
}

/** A Fisher–Yates shuffle of `items` (a new array). */
export function shuffle<T>(items: readonly T[], random: () => number = Math.random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
