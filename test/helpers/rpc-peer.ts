/**
 * A {@link JsonRpcPeer} on one end of an in-memory transport pair, for the
 * peer's unit tests: the other end only records what the peer writes, and
 * the tests drive the peer by injecting bytes. A test file closes the
 * peers after each test with `afterEach(closePeers)`.
 */

import { JsonRpcPeer } from '../../src/ovsdb/wire/rpc.js';
import type { PeerOptions } from '../../src/ovsdb/wire/rpc-options.js';
import {
  createMemoryPair,
  type MemoryTransport,
  type MemoryTransportOptions,
} from './memory-transport.js';

/** A peer and its transport ends. */
export interface Setup {
  peer: JsonRpcPeer;
  /** The peer's transport: `sent` shows what the peer wrote; `injectBytes` feeds it. */
  client: MemoryTransport;
  server: MemoryTransport;
  /** Parsed messages the peer wrote. */
  written: () => Record<string, unknown>[];
}

const opened: JsonRpcPeer[] = [];

export function setup(options: PeerOptions = {}, transport: MemoryTransportOptions = {}): Setup {
  const [client, server] = createMemoryPair(transport);
  // The server end only records; tests drive the peer by injecting bytes.
  server.attach({ data() {}, message() {}, drain() {}, close() {} });
  const peer = new JsonRpcPeer(client, options);
  opened.push(peer);
  return {
    peer,
    client,
    server,
    written: () => client.sent.map((s) => JSON.parse(s) as Record<string, unknown>),
  };
}

/** Close `peers` (made outside {@link setup}) with the others after the test. */
export function closeAfterTest(...peers: JsonRpcPeer[]): void {
  opened.push(...peers);
}

/** Close every peer {@link setup} made, and those given to {@link closeAfterTest} (each test file runs it after each test). */
export function closePeers(): void {
  for (const p of opened.splice(0)) p.close();
}
