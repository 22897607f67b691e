/**
 * How large a message from the server may be: two limits, one for what the
 * client asked for and one for what it did not.
 *
 * - **`maxMessageBytes`** (default {@link DEFAULT_MAX_REPLY_BYTES}, 1 GiB)
 *   bounds every message. It must admit the largest reply the client asks
 *   for: the initial `monitor` reply of a whole database. ovsdb-server's
 *   reply for an OVN Northbound database is about 350 bytes per logical
 *   switch port with every column monitored (measured at 100k and 500k
 *   ports: 34 MB and 173 MB), so 1M ports make some 350 MB; the default
 *   leaves room for three times that.
 * - **`maxUnsolicitedBytes`** (default {@link DEFAULT_MAX_UNSOLICITED_BYTES},
 *   64 MiB, never above `maxMessageBytes`) bounds a message that begins
 *   while no request of the client's is outstanding, so that cannot be a
 *   reply: notifications (`update2`, `update3`) and requests from the
 *   server. A peer that sends a larger one unasked is dropped at the limit,
 *   before more is buffered. The limit in force is chosen when a message's
 *   first byte arrives.
 *
 * An `update` notification larger than `maxUnsolicitedBytes` (one
 * transaction changing a large part of the database) closes the connection;
 * the database client then reconnects and gets what it missed in the reply
 * to `monitor_cond_since`, under `maxMessageBytes`.
 * @module
 */

import { DEFAULT_MAX_MESSAGE_BYTES } from './framer.js';

/**
 * Default `maxMessageBytes` of the JSON-RPC peer, the connection and the
 * database client: 1 GiB.
 */
export const DEFAULT_MAX_REPLY_BYTES = 1024 * 1024 * 1024;

/** Default `maxUnsolicitedBytes`: 64 MiB, the framer's own default limit. */
export const DEFAULT_MAX_UNSOLICITED_BYTES = DEFAULT_MAX_MESSAGE_BYTES;
