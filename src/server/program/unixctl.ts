/**
 * A control socket that `ovs-appctl -t <socket>` talks to, as Open vSwitch
 * daemons serve one (`lib/unixctl.c`): JSON-RPC 1.0 over a unix socket, one
 * request at a time per connection. A request's method is the command and
 * its params are string arguments; the reply's `result` (success) or
 * `error` (failure) is the text `ovs-appctl` prints, newline-terminated.
 *
 * ```ts
 * const ctl = await UnixctlServer.listen('/run/nb.ctl', log);
 * ctl.register('exit', '', 0, 0, async () => { … return ''; });
 * ```
 *
 * `list-commands` and `version` are built in. A message that is not a
 * request closes its connection (as `unixctl.c` does); a request larger
 * than 1 MiB too. Requests are answered one at a time, in order: while
 * one is being answered, or while more than {@link MAX_QUEUED_REPLY_BYTES}
 * of replies wait for a client that does not read them, the connection is
 * not read (pipelined requests wait in the socket, as with ovsdb-server).
 * @module
 */

import { existsSync, lstatSync, unlinkSync } from 'node:fs';
import * as net from 'node:net';
import { type UnixSocketName, unixSocketName } from '../../ovsdb/transport/unix-path.js';
import { JsonStreamFramer } from '../../ovsdb/wire/framer.js';
import { stringifyJson } from '../../ovsdb/wire/json-stringify.js';
import type { ServerLog } from '../rpc/server-log.js';

/** A command: resolves with the reply text, or throws (or rejects) with the error text. */
export type UnixctlHandler = (args: readonly string[]) => string | Promise<string>;

interface Command {
  readonly usage: string;
  readonly min: number;
  readonly max: number;
  readonly run: UnixctlHandler;
}

/** Largest request read, in bytes. */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** Bytes of replies a control connection may have waiting to be written before it is no longer read. */
export const MAX_QUEUED_REPLY_BYTES = 64 * 1024;

/** A unixctl server on one socket. */
export class UnixctlServer {
  private readonly commands = new Map<string, Command>();
  private readonly conns = new Set<net.Socket>();

  private constructor(
    /** The socket file. */
    readonly path: string,
    private readonly server: net.Server,
    private readonly log: ServerLog,
    version: string,
  ) {
    this.register('list-commands', '', 0, 0, () => this.listCommands());
    this.register('version', '', 0, 0, () => version);
    server.on('connection', (socket) => this.accept(socket));
  }

  /**
   * Listen on the unix socket `path` (a stale socket there is replaced, as
   * Open vSwitch does). `version` is what the `version` command answers.
   * @throws Error when the socket cannot be created.
   */
  static async listen(path: string, log: ServerLog, version: string): Promise<UnixctlServer> {
    let unix: UnixSocketName;
    try {
      unix = unixSocketName(path);
    } catch (e) {
      throw new Error(`could not initialize control socket (${(e as Error).message})`);
    }
    try {
      if (existsSync(path) && lstatSync(path).isSocket()) unlinkSync(path);
    } catch {
      // listen reports the problem
    }
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e) => {
        unix.release();
        reject(new Error(`${path}: could not initialize control socket (${e.message})`));
      });
      server.listen(unix.name, () => resolve());
    });
    server.on('error', (e) => log.write('unixctl', 'WARN', `${path}: ${e.message}`));
    server.once('close', () => unix.release());
    return new UnixctlServer(path, server, log, version);
  }

  /**
   * Add a command taking `min` to `max` arguments; `usage` is shown by
   * `list-commands`. A command registered again keeps its first handler.
   */
  register(name: string, usage: string, min: number, max: number, run: UnixctlHandler): void {
    if (this.commands.has(name)) return;
    this.commands.set(name, { usage, min, max, run });
  }

  /** Stop listening, drop the connections and remove the socket file. */
  async close(): Promise<void> {
    for (const c of this.conns) c.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    try {
      if (existsSync(this.path) && lstatSync(this.path).isSocket()) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }

  private listCommands(): string {
    const lines = [...this.commands.keys()]
      .sort()
      .map((name) => `  ${name.padEnd(23)} ${(this.commands.get(name) as Command).usage}`);
    return `The available commands are:\n${lines.join('\n')}\n`;
  }

  private accept(socket: net.Socket): void {
    this.conns.add(socket);
    const framer = new JsonStreamFramer({ maxMessageBytes: MAX_REQUEST_BYTES, maxDepth: 64 });
    const queue: unknown[] = [];
    let busy = false;
    const drop = (why: string) => {
      this.log.write('unixctl', 'WARN', `${this.path}: ${why}`);
      socket.destroy();
    };
    // Read only when nothing waits to be answered and the replies written drain.
    const flow = () => {
      const hold = queue.length > 0 || socket.writableLength > MAX_QUEUED_REPLY_BYTES;
      if (hold) socket.pause();
      else if (!socket.destroyed) socket.resume();
    };
    const next = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      try {
        while (queue.length > 0 && !socket.destroyed) {
          const msg = queue.shift();
          const reply = await this.handle(msg);
          if (reply === undefined) {
            drop('received unexpected message');
            return;
          }
          if (!socket.destroyed) socket.write(reply);
        }
      } finally {
        busy = false;
      }
      flow();
    };
    socket.on('data', (chunk: Buffer) => {
      try {
        framer.pushInto(chunk, queue);
      } catch (e) {
        drop(`error parsing stream: ${(e as Error).message}`);
        return;
      }
      flow();
      void next();
    });
    socket.on('drain', flow);
    socket.on('error', () => {});
    socket.on('close', () => this.conns.delete(socket));
  }

  /** The reply text to one message, or undefined when it is not a request. */
  private async handle(msg: unknown): Promise<string | undefined> {
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return undefined;
    const m = msg as Record<string, unknown>;
    if (typeof m.method !== 'string' || !Array.isArray(m.params) || !('id' in m) || m.id === null) {
      return undefined;
    }
    const id = m.id;
    const reply = (ok: boolean, text: string) => {
      const body = text !== '' && !text.endsWith('\n') ? `${text}\n` : text;
      return stringifyJson(
        ok ? { id, result: body, error: null } : { id, result: null, error: body },
      );
    };
    const method = m.method;
    const params = m.params as unknown[];
    const command = this.commands.get(method);
    if (command === undefined) {
      return reply(
        false,
        `"${method}" is not a valid command (use "list-commands" to see a list of valid commands)`,
      );
    }
    if (params.length < command.min) {
      return reply(false, `"${method}" command requires at least ${command.min} arguments`);
    }
    if (params.length > command.max) {
      return reply(false, `"${method}" command takes at most ${command.max} arguments`);
    }
    if (params.some((p) => typeof p !== 'string')) {
      return reply(false, `"${method}" command has non-string argument`);
    }
    try {
      return reply(true, await command.run(params as string[]));
    } catch (e) {
      return reply(false, e instanceof Error ? e.message : String(e));
    }
  }
}
