/**
 * The ovnkit side of W1/W2, as a user writes it: a database client
 * (`connectDatabase` with the generated NB model, every table monitored)
 * and the typed transaction builder over it; plus the bare
 * `OvsdbConnection.transact` with pre-built operations, which isolates the
 * builder's and the replica's cost.
 * @module
 */

import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { NB, type NBTables } from '../../src/nb/generated/model.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { newUuid } from '../../src/ovsdb/values/uuid.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { DB, portAddress, portName, SWITCH } from './nb-data.js';

/** A connected, synced client and a transactor over it. */
export interface OvnkitSession {
  /** The database client. */
  readonly client: DatabaseClient<NBTables>;
  /** Typed transactions. */
  readonly db: DatabaseClient<NBTables>;
  /** Close the client. */
  close(): Promise<void>;
}

/** Connect a database client to `remote` and wait until it is in sync. */
export async function openOvnkit(remote: string): Promise<OvnkitSession> {
  const client = connectDatabase({ remotes: remote, model: NB });
  await client.ready;
  return { client, db: client, close: () => client.close() };
}

/** The user's data for port `i`: name and address strings. */
export interface PortData {
  readonly name: string;
  readonly address: string;
}

/** Ports `start … start+count-1` as user data (prepared before the clock starts). */
export function portData(start: number, count: number): PortData[] {
  const out: PortData[] = [];
  for (let i = start; i < start + count; i++)
    out.push({ name: portName(i), address: portAddress(i) });
  return out;
}

/** One W1 transaction through the typed builder: insert the port, add it to the switch. */
export function addPort(db: DatabaseClient<NBTables>, p: PortData): Promise<unknown> {
  return db.transact((tx) => {
    const port = tx.insert('Logical_Switch_Port', {
      name: p.name,
      addresses: [p.address],
      port_security: [p.address],
    });
    tx.mutate('Logical_Switch', [['name', '==', SWITCH]], [['ports', 'insert', [port]]]);
  });
}

/** One W2 transaction through the typed builder: insert the ports, add them all to the switch. */
export function addPorts(
  db: DatabaseClient<NBTables>,
  ports: readonly PortData[],
): Promise<unknown> {
  return db.transact((tx) => {
    const refs = ports.map((p) =>
      tx.insert('Logical_Switch_Port', {
        name: p.name,
        addresses: [p.address],
        port_security: [p.address],
      }),
    );
    tx.mutate('Logical_Switch', [['name', '==', SWITCH]], [['ports', 'insert', refs]]);
  });
}

/** A bare connection (no replica, no builder). */
export function openBare(remote: string): Promise<OvsdbConnection> {
  return connect(remote);
}

/** Send pre-built operations on a bare connection. */
export function bareTransact(conn: OvsdbConnection, ops: readonly unknown[]): Promise<unknown> {
  return conn.transact(DB, ops as readonly Operation[]);
}

/** `monitor_cond` of every table and column of the NB schema on a bare connection. */
export async function monitorEverything(conn: OvsdbConnection): Promise<void> {
  const schema = (await conn.getSchema(DB)) as { tables: Record<string, unknown> };
  const requests = Object.fromEntries(Object.keys(schema.tables).map((t) => [t, {}]));
  await conn.monitorCond(DB, 'everything', requests);
}

/**
 * What a bare connection monitors: nothing, every table and column
 * (`monitor_cond`), or what ovnkit asks of the server (`as-ovnkit`: see
 * {@link monitorAsOvnkit} and {@link withOwnUuids}).
 */
export type BareMonitor = 'none' | 'everything' | 'as-ovnkit';

/** The bench subject text of the `as-ovnkit` bare connection. */
export const AS_OVNKIT =
  'bare connection asking what ovnkit asks: monitor_cond_since of every column and _version, inserts with their own UUID (no replica)';

/**
 * Monitor what `connectDatabase` monitors by default: every table, every
 * column and `_version`, with `monitor_cond_since` from no transaction
 * (the updates are parsed and dropped: no replica).
 */
export async function monitorAsOvnkit(conn: OvsdbConnection): Promise<void> {
  const schema = (await conn.getSchema(DB)) as {
    tables: Record<string, { columns: Record<string, unknown> }>;
  };
  const requests = Object.fromEntries(
    Object.entries(schema.tables).map(([t, table]) => [
      t,
      { columns: ['_version', ...Object.keys(table.columns)] },
    ]),
  );
  await conn.monitorCondSince(DB, 'as-ovnkit', requests);
}

/**
 * `ops` with each `insert` carrying its own row UUID (`"uuid"`, beside its
 * `uuid-name`), as ovnkit's builder sends every insert (fresh UUIDs).
 */
export function withOwnUuids(ops: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return ops.map((o) => (o['op'] === 'insert' ? { ...o, uuid: newUuid() } : o));
}

/** Monitor on a bare connection what `monitor` says (nothing for `none`). */
export async function monitorBare(conn: OvsdbConnection, monitor: BareMonitor): Promise<void> {
  if (monitor === 'everything') await monitorEverything(conn);
  else if (monitor === 'as-ovnkit') await monitorAsOvnkit(conn);
}

/**
 * `ops` as the bare connection that monitors as `monitor` says sends them:
 * with each insert's own UUID for `as-ovnkit` ({@link withOwnUuids}), as
 * they are otherwise.
 */
export function bareOps(
  monitor: BareMonitor,
  ops: Record<string, unknown>[],
): Record<string, unknown>[] {
  return monitor === 'as-ovnkit' ? withOwnUuids(ops) : ops;
}
