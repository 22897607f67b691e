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

export * from './backoff.js';
export * from './client.js';
export * from './cluster.js';
export * from './compat.js';
export * from './connect.js';
export * from './connect-ws.js';
export * from './connection.js';
export * from './datum.js';
export * from './dial.js';
export * from './emitter.js';
export * from './errors.js';
export * from './framer.js';
export * from './indexes.js';
export * from './model.js';
export * from './remote.js';
export * from './replica.js';
export * from './rpc.js';
export * from './schema.js';
export * from './schema-types.js';
export * from './socket-transport.js';
export * from './transport.js';
export * from './updates.js';
export * from './uuid.js';
export * from './validators.js';
export * from './wire.js';
export * from './ws-transport.js';
