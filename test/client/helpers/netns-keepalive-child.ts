/**
 * Run inside a fresh network namespace (`unshare -n`, loopback up) by
 * `dead-server.test.ts`: a scripted server on 127.0.0.1 that never answers
 * the monitor request (the client owes it nothing but waits for a reply),
 * a database client with default options over tcp, and, once the monitor
 * request is in, the loopback taken down: every packet is lost, nothing is
 * closed. Prints `{"ms":…,"reason":…}`: how long the client took to give
 * the connection up, and why.
 *
 * Usage: node --import tsx netns-keepalive-child.ts
 */

import { execFileSync } from 'node:child_process';
import { connectDatabase } from '../../../src/client/open.js';
import { BusyPeer } from './busy-peer.js';
import { TEST_MODEL } from './fixtures.js';

let lostAt = 0;
const peer = await BusyPeer.start('tcp', {
  silenceMs: 0,
  rows: 0,
  rowBytes: 0,
  hold: true,
  onMonitor: () => {
    // Let the request's acknowledgement go out first.
    setTimeout(() => {
      execFileSync('ip', ['link', 'set', 'lo', 'down']);
      lostAt = Date.now();
    }, 200);
  },
});
const client = connectDatabase({ remotes: peer.remote, model: TEST_MODEL });
const reason = await new Promise<string>((resolve) => {
  client.onStatus((e) => {
    if (e.type === 'reconnecting' || e.type === 'disconnected') resolve(e.reason);
  });
});
console.log(JSON.stringify({ ms: Date.now() - lostAt, reason, methods: peer.methods }));
process.exit(0);
