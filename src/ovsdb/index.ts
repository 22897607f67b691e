/**
 * The schema-agnostic OVSDB layer: RFC 7047 plus the Open vSwitch extensions.
 *
 * - schemas: {@link parseSchema} validates an `.ovsschema` document;
 * - values: the datum codec ({@link compileTableCodec}) and the shared validators
 *   ({@link validateColumnValue}), driven by the schema;
 * - the wire: a streaming framer ({@link JsonStreamFramer}), a JSON-RPC 1.0 peer
 *   ({@link JsonRpcPeer}) and the raw wire types;
 * - connections: {@link connect} opens a tcp, unix or ssl remote and returns an
 *   {@link OvsdbConnection} with every OVSDB method.
 *
 * @example
 * ```ts
 * import { connect } from 'ovnkit/ovsdb';
 *
 * const conn = await connect('unix:/run/ovn/ovnnb_db.sock');
 * console.log(await conn.listDbs()); // [ 'OVN_Northbound', '_Server' ]
 * conn.close();
 * ```
 * @module
 */

export * from './connection/connect.js';
export * from './connection/connection.js';
export * from './connection/emitter.js';
export * from './schema/compat.js';
export * from './schema/model.js';
export * from './schema/schema.js';
export * from './schema/schema-types.js';
export * from './transport/connect-ws.js';
export * from './transport/dial.js';
export * from './transport/remote.js';
export * from './transport/socket-transport.js';
export * from './transport/transport.js';
export * from './transport/ws-transport.js';
export * from './values/datum.js';
export { compareAtoms } from './values/order.js';
export { applyMapDiff, applySetDiff, EMPTY_MAP, EMPTY_SET } from './values/set-map.js';
export * from './values/uuid.js';
export * from './values/validators.js';
export * from './wire/errors.js';
export * from './wire/framer.js';
export * from './wire/rpc.js';
export * from './wire/wire.js';
