/**
 * The OVN Northbound database: the typed model `NB` (schema 7.18.0) with its
 * table map `NBTables`, and per table the row, insert and update types, enum
 * value lists and canonical table schema; and the Northbound DSL: operations
 * named the way OVN users talk (`lsAdd`, `lspAdd`, `pgAddPorts`, `aclAdd`,
 * `lrNatAdd`, `lrPolicyAdd`, `lrRouteAdd`, …) that compose into one
 * transaction, the match builder, `waitFor('sb' | 'hv')` and `show`.
 *
 * ```ts
 * import { NB, createNb, lsAdd, lspAdd } from 'ovnkit/nb';
 *
 * const nb = createNb(client); // client = connectDatabase({ remotes, model: NB })
 * await nb.transact((t) => {
 *   const sw = lsAdd(t, 'sw0');
 *   lspAdd(t, sw, 'web-1', { addresses: ['00:00:00:00:00:05 10.0.0.5'] });
 * });
 * ```
 * @module
 */

export * from './acl.js';
export * from './address-set.js';
export * from './addresses.js';
export { type ConnectNbOptions, ConnectedNb, connectNb } from './connect.js';
export * from './dhcp.js';
export * from './errors.js';
export * from './existence.js';
export * from './generated/index.js';
export * from './ha-chassis-group.js';
export {
  checkCidr,
  type IpFamily,
  normalizeIp,
  normalizePrefix,
  type ParsedIp,
  type ParsedPrefix,
  parseIp,
  parsePrefix,
} from './ip.js';
export * from './load-balancer.js';
export * from './lookup.js';
export { checkMac, isMac, normalizeMac } from './mac.js';
export * from './match.js';
export * from './match-parser.js';
export * from './nat.js';
export * from './nb.js';
export * from './policy.js';
export * from './port-group.js';
export * from './router.js';
export * from './router-port.js';
export * from './show.js';
export * from './static-route.js';
export * from './switch.js';
export * from './switch-port.js';
export * from './txn.js';
export * from './wait.js';
