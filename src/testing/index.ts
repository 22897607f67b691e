/**
 * Test helpers for programs that use ovnkit.
 *
 * - **The test kit** (no Open vSwitch needed): {@link seedDatabase} (an
 *   in-memory database seeded with named rows, typed by the model, for one
 *   test), state assertions ({@link assertData} and its forms; vitest
 *   matchers in `ovnkit/testing/vitest`), a transaction recorder
 *   (`db.record()`), fault injection on a client's connection
 *   (`db.session(label)`: drop, half-open, delayed replies, a failed
 *   transaction, a held lock) and a simulated cluster
 *   ({@link createTestCluster}); {@link createTestDatabase} adds a
 *   connected client.
 * - **Real processes**: {@link startOvsdbServer} (a real `ovsdb-server` on a
 *   throw-away database), {@link startOvsdbCluster} (a RAFT cluster),
 *   {@link startOvn} (NB and SB with a real `ovn-northd` between them),
 *   {@link startMemoryServer} (the in-memory server behind the same handle as
 *   `startOvsdbServer`), and {@link createPki} (TLS certificates).
 *
 * ```ts
 * import { seedDatabase, assertData } from 'ovnkit/testing';
 * ```
 * Node only. The real-process helpers need Open vSwitch (`ovsdb-server`,
 * `ovsdb-tool`, `ovsdb-client`, `ovs-appctl`, and `ovs-pki` for TLS) or
 * OVN (`ovn-northd`) installed. See `docs/testing.md`.
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
  assertData,
  assertDataExact,
  assertDataSubset,
  assertEmptyData,
  assertSent,
  assertSentAtMost,
  assertSentNothing,
  checkData,
  checkEmptyData,
  type ExpectedRow,
  type ExpectedState,
  stateSnapshot,
} from './kit/assert.js';
export {
  createTestCluster,
  type MemberState,
  type TestCluster,
  type TestClusterMember,
  type TestClusterOptions,
} from './kit/cluster.js';
export type { CompareMode, CompareResult } from './kit/compare.js';
export {
  type HeldLock,
  type SeedDatabaseOptions,
  type SeededDatabase,
  seedDatabase,
} from './kit/database.js';
export {
  type OvnDatabase,
  type OvnFixture,
  OvnNorthdMissingError,
  ovnNorthdMissing,
  type StartOvnOptions,
  startOvn,
  startOvnOrSkip,
} from './kit/ovn.js';
export { type OpPattern, TransactionRecorder } from './kit/recorder.js';
export {
  type CheckedSeed,
  INVALID_ROW,
  type InvalidRow,
  invalidRow,
  type NamesOf,
  type SeedRow,
  type SeedShape,
  type SeedUuids,
  type WithNames,
} from './kit/seed.js';
export {
  type DropAfterOptions,
  type InjectedError,
  type RecordedOutcome,
  type RecordedTransaction,
  TestSession,
} from './kit/session.js';
export type { ReplicaLike, ServerStateSource, StateSource } from './kit/state.js';
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
