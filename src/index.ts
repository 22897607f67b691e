/**
 * ovnkit: a TypeScript SDK for OVSDB and the OVN Northbound database.
 *
 * The root entry re-exports the OVSDB layer; the other layers have their own
 * entry points: `ovnkit/ovsdb`, `ovnkit/nb`, `ovnkit/testing` and
 * `ovnkit/codegen`.
 * @module
 */
export * from './client/index.js';
export * from './ovsdb/index.js';
