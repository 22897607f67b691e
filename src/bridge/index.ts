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
export * from '../net/auth.js';
export * from '../net/listen-address.js';
export * from './bridge.js';
export * from './cli.js';
export * from './policy.js';
export * from './upstream.js';
