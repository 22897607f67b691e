/**
 * Test helpers for programs that use ovnkit: start a real `ovsdb-server` on a
 * throw-away database, and make TLS certificates for it.
 *
 * ```ts
 * import { startOvsdbServer } from 'ovnkit/testing';
 * ```
 * Node only; needs Open vSwitch (`ovsdb-server`, `ovsdb-tool`, `ovsdb-client`,
 * `ovs-appctl`, and `ovs-pki` for TLS) installed.
 * @module
 */

export {
  type ClusterHost,
  type ClusterMember,
  type OvsdbClusterHandle,
  type StartOvsdbClusterOptions,
  startOvsdbCluster,
} from './cluster.js';
export {
  type MemoryServerHandle,
  type StartMemoryServerOptions,
  startMemoryServer,
} from './memory-server.js';
export {
  findOvsdbServer,
  OvsdbServerMissingError,
  type OvsTools,
  requireOvsdbServer,
} from './ovs-tools.js';
export {
  type OvsdbServerHandle,
  type ServerRemoteKind,
  type ServerRemotes,
  type StartOvsdbServerOptions,
  startOvsdbServer,
} from './ovsdb-server.js';
export {
  type ClientTlsChoice,
  type CreatePkiOptions,
  createPki,
  PKI_SERVER_NAME,
  type Pki,
  type PkiCredential,
  readClientTls,
} from './pki.js';
export {
  createTestDatabase,
  type TestDatabase,
  type TestDatabaseOptions,
} from './test-database.js';
