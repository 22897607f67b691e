/**
 * The database client's default {@link Dialer} in Node: sockets for `tcp:`,
 * `unix:` and `ssl:` remotes, and the `ws` package for `ws:`/`wss:`
 * remotes. Node only.
 * @module
 */

import { dialWebSocket } from './connect-ws.js';
import type { DialedTransport, Dialer, DialOptions } from './dial.js';
import { openSocketTransport } from './socket-transport.js';

/**
 * The default {@link Dialer}: a WebSocket for `ws:`/`wss:` remotes, a
 * socket for the others.
 */
export const dialRemote: Dialer = (remote, options) =>
  /^wss?:/i.test(remote) ? dialWebSocket(remote, options) : dialSocket(remote, options);

/**
 * A {@link Dialer} for socket remotes (`tcp:`, `unix:`, `ssl:`):
 * {@link openSocketTransport}, with pause/resume for backpressure.
 */
export async function dialSocket(remote: string, options: DialOptions): Promise<DialedTransport> {
  const transport = await openSocketTransport(remote, options);
  return {
    transport,
    pause: () => transport.pauseReading(),
    resume: () => transport.resumeReading(),
    tcpState: transport.tcpState,
  };
}
