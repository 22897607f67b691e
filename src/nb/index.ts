/**
 * The OVN Northbound database: the typed model `NB` (schema 7.18.0) with its
 * table map `NBTables`, and per table the row, insert and update types, enum
 * value lists and canonical table schema.
 *
 * ```ts
 * import { NB, type LogicalSwitchPort, AclAction } from 'ovnkit';
 * ```
 * @module
 */

export * from './generated/index.js';
