/**
 * The OVSDB ↔ WebSocket bridge (`ovnkit bridge`): {@link startBridge} runs
 * one in a program; {@link runBridgeCli} is the command line.
 *
 * ```ts
 * import { startBridge } from 'ovnkit/bridge';
 * const bridge = await startBridge({ listen: 'ws://127.0.0.1:8080/ovsdb', remote: 'unix:/run/ovn/ovnnb_db.sock', tokens: [token] });
 * ```
 * Node only.
 * @module
 */

export { readTokenFile } from '../net/auth.js';
export { type Bridge, BridgeConfigError, startBridge } from './bridge.js';
export { type BridgeCliIo, runBridgeCli } from './cli.js';
export {
  type BridgeLogger,
  type BridgeOptions,
  type BridgeStats,
  DEFAULT_BRIDGE_MAX_BUFFERED_BYTES,
  DEFAULT_BRIDGE_MAX_PENDING_REQUESTS,
} from './options.js';
export {
  BridgePolicy,
  type BridgePolicyOptions,
  KNOWN_METHODS,
  type PolicyDecision,
  READ_ONLY_METHODS,
  READ_ONLY_TRANSACT_OPS,
} from './policy.js';
