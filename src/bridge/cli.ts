/**
 * `ovnkit bridge`: the command line of the OVSDB ↔ WebSocket bridge.
 *
 * ```sh
 * ovnkit bridge --listen ws://127.0.0.1:8080/ovsdb --remote unix:/var/run/ovn/ovnnb_db.sock \
 *   --token-file /etc/ovnkit/bridge.tokens --allow-db OVN_Northbound --read-only
 * ```
 * @module
 */

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { readTokenFile } from '../net/auth.js';
import { type Bridge, BridgeConfigError, startBridge } from './bridge.js';
import type { BridgeOptions } from './options.js';
import { BridgePolicy } from './policy.js';

/** The usage text of `ovnkit bridge`. */
export const BRIDGE_USAGE = `Usage: ovnkit bridge --listen ws://<ip>:<port>[/<path>] --remote <remote> [options]

Forward WebSocket clients (one JSON-RPC message per text frame) to an OVSDB
server. Each client gets its own connection to the server.

  --listen URL            where to listen: ws://127.0.0.1:8080/ovsdb, or wss://… with --tls-cert/--tls-key
  --remote REMOTE         the OVSDB server: unix:<file>, tcp:<host>:<port> or ssl:<host>:<port>
  --token-file FILE       accepted bearer tokens, one per line (clients send "Authorization: Bearer <token>"
                          or, from browsers, ?token=<token>)
  --no-auth               accept clients without a token (only when listening on a loopback address)
  --allow-db NAME         allow only these databases (repeatable; list _Server too if clients need it)
  --allow-method NAME     allow only these methods (repeatable; echo and cancel are always allowed)
  --read-only             allow only reading: list_dbs, get_schema, the monitors, echo, get_server_id,
                          set_db_change_aware, and transact with select, wait and comment operations
  --tls-cert FILE         certificate (PEM) for wss:
  --tls-key FILE          private key (PEM) for wss:
  --remote-ca FILE        CA certificate (PEM) to verify an ssl: server
  --remote-cert FILE      client certificate (PEM) for an ssl: server
  --remote-key FILE       client private key (PEM) for an ssl: server
  --remote-servername NAME  the name the ssl: server's certificate must carry (default: the remote's host)
  --max-frame-bytes N     largest client frame (default 4194304); larger ones close with 1009
  --max-message-bytes N   largest server message (default 1073741824: an initial monitor reply)
  --max-unsolicited-bytes N  largest server message while no request of the client is pending
                          (default 67108864)
  --high-water-mark N     bytes queued for one client before the bridge stops reading its server (default 1048576)
  --max-pending-requests N  requests of one client waiting for replies before the bridge stops reading it
                          (default 1000)
  --allow-origin ORIGIN   let pages from ORIGIN connect (repeatable), e.g. https://ui.example.com; by default
                          only pages the bridge serves itself (--static) may; "*" lets any page (with a warning)
  --static DIR            serve the files of DIR over plain HTTP (e.g. a browser page)
  --max-connections N     most simultaneous clients (default 1000)
  --max-buffered-bytes N  most bytes held for all clients together, both directions (default 1073741824,
                          or one client's bound when larger); the client that would pass it is closed (1013)
  --max-session-buffered-bytes N
                          most bytes held for one client, both directions (default: what the message,
                          frame and high-water limits allow); past it the client is closed (1013)
  --ping-interval MS      ping clients this often and drop those that do not answer (default 30000; 0: never)
  -h, --help              show this help
`;

/** Where {@link runBridgeCli} writes, and the signal that stops it (for tests). */
export interface BridgeCliIo {
  readonly stdout?: { write(text: string): unknown } | undefined;
  readonly stderr?: { write(text: string): unknown } | undefined;
  /** Stop the bridge when aborted. Default: SIGINT and SIGTERM. */
  readonly signal?: AbortSignal | undefined;
  /** Called once the bridge listens. */
  readonly onListening?: ((bridge: Bridge) => void) | undefined;
}

/** A command-line usage error: the message is meant for the user. */
class UsageError extends Error {}

/**
 * Parse `argv` (the arguments after `bridge`) into bridge options.
 * @throws Error with a message for the user when the arguments are invalid.
 */
export async function parseBridgeArgs(argv: readonly string[]): Promise<BridgeOptions | 'help'> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected argument "${parsed.positionals[0]}"`);
  }
  if (v.listen === undefined) throw new UsageError('--listen is required');
  if (v.remote === undefined) throw new UsageError('--remote is required');
  if ((v['tls-cert'] === undefined) !== (v['tls-key'] === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  const tokens = v['token-file'] === undefined ? undefined : await readTokenFile(v['token-file']);
  const readPem = (file: string | undefined) =>
    file === undefined ? Promise.resolve(undefined) : readFile(file, 'utf8');
  const [cert, key, remoteCa, remoteCert, remoteKey] = await Promise.all([
    readPem(v['tls-cert']),
    readPem(v['tls-key']),
    readPem(v['remote-ca']),
    readPem(v['remote-cert']),
    readPem(v['remote-key']),
  ]);
  const servername = v['remote-servername'];
  const remoteTls =
    remoteCa === undefined &&
    remoteCert === undefined &&
    remoteKey === undefined &&
    servername === undefined
      ? undefined
      : { ca: remoteCa, cert: remoteCert, key: remoteKey, servername };
  const policy = {
    allowDbs: v['allow-db'],
    allowMethods: v['allow-method'],
    readOnly: v['read-only'] ?? false,
  };
  try {
    new BridgePolicy(policy);
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  return {
    listen: v.listen,
    remote: v.remote,
    tokens,
    noAuth: v['no-auth'] ?? false,
    policy,
    tls: cert !== undefined && key !== undefined ? { cert, key } : undefined,
    remoteTls,
    maxFrameBytes: count('--max-frame-bytes', v['max-frame-bytes']),
    maxMessageBytes: count('--max-message-bytes', v['max-message-bytes']),
    maxUnsolicitedBytes: count('--max-unsolicited-bytes', v['max-unsolicited-bytes']),
    highWaterMark: count('--high-water-mark', v['high-water-mark']),
    maxPendingRequests: count('--max-pending-requests', v['max-pending-requests']),
    maxConnections: count('--max-connections', v['max-connections']),
    maxBufferedBytes: count('--max-buffered-bytes', v['max-buffered-bytes']),
    maxSessionBufferedBytes: count('--max-session-buffered-bytes', v['max-session-buffered-bytes']),
    pingIntervalMs: v['ping-interval'] === '0' ? 0 : count('--ping-interval', v['ping-interval']),
    allowOrigins: v['allow-origin'],
    staticDir: v.static,
  };
}

/**
 * Run `ovnkit bridge` with `argv` (the arguments after `bridge`): start the
 * bridge, log to stderr, print `listening on <url>` to stdout, and run until
 * SIGINT or SIGTERM (or `io.signal`), then close every client with 1001.
 * Resolves with the exit code: 0 after a clean stop, 2 for a usage or
 * configuration error (e.g. no token), 1 when the bridge cannot start
 * (unreadable file, address in use).
 */
export async function runBridgeCli(argv: readonly string[], io: BridgeCliIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let options: BridgeOptions | 'help';
  try {
    options = await parseBridgeArgs(argv);
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    stderr.write(`ovnkit bridge: ${text}\n`);
    if (e instanceof UsageError) {
      stderr.write('Try "ovnkit bridge --help".\n');
      return 2;
    }
    return 1;
  }
  if (options === 'help') {
    stdout.write(BRIDGE_USAGE);
    return 0;
  }
  const log = (level: string) => (message: string) =>
    stderr.write(`${new Date().toISOString()} ${level} ${message}\n`);
  let bridge: Bridge;
  try {
    bridge = await startBridge({
      ...options,
      logger: { info: log('INFO'), warn: log('WARN'), error: log('ERROR') },
    });
  } catch (e) {
    stderr.write(`ovnkit bridge: ${e instanceof Error ? e.message : String(e)}\n`);
    return e instanceof BridgeConfigError ? 2 : 1;
  }
  stdout.write(`listening on ${bridge.url}\n`);
  io.onListening?.(bridge);
  await new Promise<void>((resolve) => {
    if (io.signal) {
      if (io.signal.aborted) resolve();
      else io.signal.addEventListener('abort', () => resolve(), { once: true });
      return;
    }
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await bridge.close();
  return 0;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      listen: { type: 'string' },
      remote: { type: 'string' },
      'token-file': { type: 'string' },
      'no-auth': { type: 'boolean' },
      'allow-db': { type: 'string', multiple: true },
      'allow-method': { type: 'string', multiple: true },
      'read-only': { type: 'boolean' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'remote-ca': { type: 'string' },
      'remote-cert': { type: 'string' },
      'remote-key': { type: 'string' },
      'remote-servername': { type: 'string' },
      'max-frame-bytes': { type: 'string' },
      'max-message-bytes': { type: 'string' },
      'max-unsolicited-bytes': { type: 'string' },
      'high-water-mark': { type: 'string' },
      'max-pending-requests': { type: 'string' },
      'max-connections': { type: 'string' },
      'max-buffered-bytes': { type: 'string' },
      'max-session-buffered-bytes': { type: 'string' },
      'ping-interval': { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      static: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function count(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(text))
    throw new UsageError(`${flag} needs a positive integer, got "${text}"`);
  return Number(text);
}
