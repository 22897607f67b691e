/**
 * The schema-agnostic OVSDB layer: RFC 7047 plus the Open vSwitch extensions.
 *
 * - schemas: {@link parseSchema} validates an `.ovsschema` document, and
 *   {@link defineModel} types a database model;
 * - values: the datum codec ({@link compileTableCodec}) and the shared validators ({@link validateColumnValue}), driven by the schema;
 * - the wire: a streaming framer ({@link JsonStreamFramer}), a JSON-RPC 1.0 peer
 *   ({@link JsonRpcPeer}) and the raw wire types;
 * - connections: {@link connect} opens a tcp, unix, ssl or WebSocket remote and
 *   returns an {@link OvsdbConnection} with every OVSDB method.
 *
 * The database client (`connectDatabase`) is in `ovnkit/client`, typed
 * transactions in `ovnkit/transactions`.
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

export { type ConnectOptions, connect } from './connection/connect.js';
export * from './portable.js';
export { dialRemote } from './transport/dial-node.js';
export {
  openSocketTransport,
  SocketTransport,
  type SocketTransportOptions,
} from './transport/socket-transport.js';
export {
  type TcpKernelState,
  type TcpStateReader,
  tcpStateReader,
} from './transport/tcp-state.js';
