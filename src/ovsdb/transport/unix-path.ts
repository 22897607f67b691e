/**
 * Unix socket paths longer than a socket address holds (`sun_path`: 107
 * bytes and a NUL on Linux, 103 elsewhere), which Node cuts short without
 * a word (the socket is made, or looked for, under the cut name). On Linux
 * such a path is reached as Open vSwitch reaches it (`make_sockaddr_un` in
 * `lib/socket-util-unix.c`): through `/proc/self/fd/<fd>/<name>`, `<fd>`
 * an open descriptor of the socket's directory, so that a server and
 * `ovs-appctl`, `ovsdb-client` or any Open vSwitch program meet at the same
 * file. A path that cannot be shortened so (a name of its own too long, a
 * directory that cannot be opened, another system) is refused with an
 * error that says why.
 * @module
 */

import { closeSync, constants, openSync } from 'node:fs';
import * as net from 'node:net';
import { basename, dirname } from 'node:path';

/** The longest unix socket path a socket address holds, in bytes. */
export const MAX_UNIX_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

/** The name to bind or connect a unix socket to, and the descriptor it may need. */
export interface UnixSocketName {
  /** `path` itself when it fits, else its `/proc/self/fd/<fd>/<name>` form. */
  readonly name: string;
  /**
   * Close the directory's descriptor, if one was opened: once connected,
   * or once the listening socket is closed (Node removes the socket file
   * through `name` then).
   */
  release(): void;
}

const NOTHING = (): void => {};

/**
 * The name through which to bind or connect the unix socket at `path`.
 * @throws Error naming `path`, its length and the limit, when it is too long
 *   and cannot be shortened.
 */
export function unixSocketName(path: string): UnixSocketName {
  const bytes = Buffer.byteLength(path);
  if (bytes <= MAX_UNIX_PATH_BYTES) return { name: path, release: NOTHING };
  const refuse = (why: string): Error =>
    new Error(
      `${path}: a unix socket path is limited to ${MAX_UNIX_PATH_BYTES} bytes and this one has ${bytes}${why}`,
    );
  if (process.platform !== 'linux') throw refuse('');
  let fd: number;
  try {
    fd = openSync(dirname(path), constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (e) {
    throw refuse(`, and its directory cannot be opened to reach it: ${(e as Error).message}`);
  }
  const name = `/proc/self/fd/${fd}/${basename(path)}`;
  if (Buffer.byteLength(name) > MAX_UNIX_PATH_BYTES) {
    closeSync(fd);
    throw refuse(`, and its file name alone is too long to reach it as ${name}`);
  }
  let open = true;
  return {
    name,
    release() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/**
 * `net.connect` to the unix socket at `path`, through {@link unixSocketName}
 * (the directory's descriptor is closed once the socket connects or closes).
 * A path that cannot be reached fails as a connection does: the socket
 * emits the error naming `path` and the limit, then closes.
 */
export function connectUnixSocket(path: string): net.Socket {
  let unix: UnixSocketName;
  try {
    unix = unixSocketName(path);
  } catch (e) {
    const socket = new net.Socket();
    process.nextTick(() => socket.destroy(e as Error));
    return socket;
  }
  const socket = net.connect({ path: unix.name });
  socket.once('connect', unix.release);
  socket.once('close', unix.release);
  return socket;
}
