/**
 * The database client: {@link connectDatabase} keeps a typed replica of a
 * database in sync over reconnects and cluster failover, with indexes and
 * ordered events.
 * @module
 */

export * from './backoff.js';
export * from './client.js';
export * from './cluster.js';
export * from './replica/indexes.js';
export * from './replica/replica.js';
export * from './replica/row-codec.js';
