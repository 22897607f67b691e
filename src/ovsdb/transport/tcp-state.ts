/**
 * The kernel's view of one TCP connection: whether the peer's host is
 * acknowledging what we send. Linux only: read from `/proc/net/tcp` (or
 * `tcp6`), the table `ss` and `netstat` also read, so nothing is sent and
 * no privilege is needed. Elsewhere (macOS, Windows, a Linux without
 * `/proc`), {@link tcpStateReader} returns undefined.
 *
 * The peer's kernel acknowledges our bytes and answers keepalive and
 * zero-window probes however busy, or stopped, the process behind the
 * socket is. A host that is gone or a path that drops every packet answers
 * nothing: the kernel then retransmits our unacknowledged bytes with a
 * doubling timeout (about 0.2, 0.6, 1.4, 3.0, 6.2 s after the first send on
 * a LAN) or sends its probes unanswered, and counts them. Those counts are
 * what this module reads.
 * @module
 */

import { readFile } from 'node:fs/promises';
import type * as net from 'node:net';
import { endianness } from 'node:os';
import { parseIpv4Bytes, parseIpv6Bytes } from './ip-bytes.js';

/** What the kernel knows about a TCP connection's peer. */
export interface TcpKernelState {
  /** Bytes written and not yet acknowledged by the peer (those not sent yet included). */
  readonly unacknowledgedBytes: number;
  /**
   * Retransmission timeouts in a row without the peer acknowledging new
   * data (reset by each acknowledgement).
   */
  readonly retransmits: number;
  /** Keepalive or zero-window probes sent in a row without an answer. */
  readonly unansweredProbes: number;
}

/** Reads the kernel's state of one connection; undefined when the kernel does not list it. */
export type TcpStateReader = () => Promise<TcpKernelState | undefined>;

/**
 * A reader of the kernel's state of the connected TCP socket `socket`
 * (over TLS too), or undefined where the kernel's table cannot be read:
 * on other platforms than Linux, and for a socket without addresses (not
 * connected, or a unix socket).
 */
export function tcpStateReader(socket: net.Socket): TcpStateReader | undefined {
  if (process.platform !== 'linux') return undefined;
  const { localAddress, localPort, remoteAddress, remotePort, remoteFamily } = socket;
  if (
    localAddress === undefined ||
    remoteAddress === undefined ||
    localPort === undefined ||
    remotePort === undefined
  ) {
    return undefined;
  }
  const v6 = remoteFamily === 'IPv6';
  const local = kernelAddress(localAddress, v6);
  const remote = kernelAddress(remoteAddress, v6);
  if (local === undefined || remote === undefined) return undefined;
  const key = ` ${local}:${hex(localPort, 4)} ${remote}:${hex(remotePort, 4)} `;
  const path = v6 ? '/proc/net/tcp6' : '/proc/net/tcp';
  return async () => {
    const text = await readTable(path);
    return text === undefined ? undefined : findState(text, key);
  };
}

/** How long one read of a table serves every reader (the client checks once a second). */
const TABLE_REUSE_MS = 250;

const tables = new Map<
  string,
  { readonly at: number; readonly text: Promise<string | undefined> }
>();

/** The text of `path`, read at most once per {@link TABLE_REUSE_MS} for all readers; undefined when unreadable. */
function readTable(path: string): Promise<string | undefined> {
  const now = Date.now();
  const cached = tables.get(path);
  if (cached !== undefined && now - cached.at < TABLE_REUSE_MS) return cached.text;
  const text = readFile(path, 'latin1').then(
    (t) => t,
    () => undefined,
  );
  tables.set(path, { at: now, text });
  return text;
}

/**
 * The state on the line of `text` (a `/proc/net/tcp` table) whose local
 * and remote addresses are `key`, skipping `TIME_WAIT` entries.
 *
 * A line: `sl local rem st tx_queue:rx_queue tr:tm->when retrnsmt uid
 * timeout inode …`, where `tx_queue` (hex) is the bytes written and not
 * acknowledged, `retrnsmt` (hex) the retransmission timeouts without
 * progress and `timeout` (decimal) the unanswered probes.
 */
export function findState(text: string, key: string): TcpKernelState | undefined {
  let at = text.indexOf(key);
  while (at >= 0) {
    const start = text.lastIndexOf('\n', at) + 1;
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const fields = text.slice(start, end).trim().split(/\s+/);
    const queues = fields[4]?.split(':');
    if (fields.length >= 9 && fields[3] !== '06' && queues !== undefined) {
      const unacknowledgedBytes = Number.parseInt(queues[0] ?? '', 16);
      const retransmits = Number.parseInt(fields[6] ?? '', 16);
      const unansweredProbes = Number.parseInt(fields[8] ?? '', 10);
      if (
        Number.isFinite(unacknowledgedBytes) &&
        Number.isFinite(retransmits) &&
        Number.isFinite(unansweredProbes)
      ) {
        return { unacknowledgedBytes, retransmits, unansweredProbes };
      }
    }
    at = text.indexOf(key, end);
  }
  return undefined;
}

function hex(n: number, digits: number): string {
  return n.toString(16).toUpperCase().padStart(digits, '0');
}

/**
 * An address as the kernel's table prints it: the address's 32-bit words,
 * each as `%08X` of its value in the host's byte order (so on a
 * little-endian host 127.0.0.1 is `0100007F`). `v6`: a `tcp6` entry (an
 * IPv4 peer of an IPv6 socket is written mapped, `::ffff:a.b.c.d`).
 */
export function kernelAddress(address: string, v6: boolean): string | undefined {
  // A zone index (`fe80::1%eth0`) is not part of the address.
  const text = address.replace(/%.*$/, '');
  const bytes = v6 ? parseIpv6Bytes(text) : parseIpv4Bytes(text);
  if (bytes === undefined) return undefined;
  const little = endianness() === 'LE';
  let out = '';
  for (let w = 0; w < bytes.length; w += 4) {
    const word = bytes.slice(w, w + 4);
    if (little) word.reverse();
    for (const b of word) out += hex(b, 2);
  }
  return out;
}
