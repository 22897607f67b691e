/**
 * The listeners of one server: opening the passive remotes `punix:`,
 * `ptcp:`, `pssl:` and the WebSocket endpoints `ws:` / `wss:`, turning each
 * accepted connection into a {@link SessionChannel} for a new session, and
 * closing them. A listener for a new transport is one more branch of
 * {@link Listeners.listen} that hands its connections to
 * {@link ListenerHost.startSession}.
 * @module
 */

import { existsSync, lstatSync, unlinkSync } from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';
import {
  formatRemote,
  isWebSocketRemote,
  type PassiveRemote,
  parsePassiveRemote,
} from '../../ovsdb/transport/remote.js';
import { unixSocketName } from '../../ovsdb/transport/unix-path.js';
import { type ChannelBounds, type SessionChannel, SocketChannel } from '../rpc/channel.js';
import type { ServerLog } from '../rpc/server-log.js';
import { ConnectionLimits } from './limits.js';

/**
 * TLS material for `pssl:` and `wss:` listeners (PEM contents). `pssl:` clients
 * must present a certificate signed by `ca`; `wss:` uses only `key` and `cert`.
 */
export interface ServerTlsOptions {
  /** The server's private key. */
  readonly key: string | Buffer;
  /** The server's certificate. */
  readonly cert: string | Buffer;
  /** The CA certificate(s) client certificates must chain to. */
  readonly ca: string | Buffer | readonly (string | Buffer)[];
  /** Oldest and newest TLS versions accepted (default: Node's). */
  readonly minVersion?: tls.SecureVersion | undefined;
  readonly maxVersion?: tls.SecureVersion | undefined;
  /** OpenSSL cipher list (default: Node's). */
  readonly ciphers?: string | undefined;
}

/**
 * Options of one passive remote, as ovsdb-server takes them from a
 * `Connection` row or a config file: they apply to every session accepted
 * on it.
 */
export interface RemoteOptions {
  /** RBAC role of its sessions. */
  readonly role?: string | undefined;
  /** Its sessions may only read. */
  readonly readOnly?: boolean | undefined;
  /** Inactivity probe of its sessions, ms (0: none; default: the server's). */
  readonly probeIntervalMs?: number | undefined;
}

/** What is known of a session when it starts. */
export interface SessionStart {
  readonly role?: string | undefined;
  readonly readOnly?: boolean | undefined;
  readonly probeIntervalMs?: number | undefined;
  /** The common name of the peer's TLS certificate. */
  readonly peerId?: string | undefined;
}

/** One listener of a server. */
export interface ListenAddress {
  /** The passive remote as given, e.g. `ptcp:0:127.0.0.1`. */
  readonly remote: string;
  /** `punix`, `ptcp`, `pssl`, `ws` or `wss`. */
  readonly kind: PassiveRemote['kind'] | 'ws' | 'wss';
  /**
   * Where a client connects, e.g. `tcp:127.0.0.1:41234` (the bound port),
   * `unix:/tmp/db.sock` or `ws://127.0.0.1:41234/` (a URL `connect` dials).
   */
  readonly client: string;
  /** The bound port (tcp, ssl, ws and wss). */
  readonly port?: number | undefined;
  /** The bound address (tcp and ssl when the remote names one; ws and wss always). */
  readonly host?: string | undefined;
  /** The socket file (unix). */
  readonly path?: string | undefined;
}

/** What the listeners need from their server. */
export interface ListenerHost {
  /** Certificates for `pssl:` and `wss:` listeners. */
  readonly tls: ServerTlsOptions | undefined;
  readonly log: ServerLog;
  /** The bounds of the connections (default: {@link ConnectionLimits}' defaults). */
  readonly limits?: ConnectionLimits | undefined;
  /** Browser origins WebSocket listeners accept besides their own (`*`: any). */
  readonly allowOrigins?: readonly string[] | undefined;
  /** Whether the server is shutting down: new connections are then dropped. */
  closing(): boolean;
  /** Serve a new connection. */
  startSession(channel: SessionChannel, start?: SessionStart): void;
}

/** The sessions of one listener. */
interface OpenCount {
  sessions: number;
  readonly sockets: Set<net.Socket>;
}

interface Listener {
  readonly address: ListenAddress;
  /** Sessions accepted on it and still open. */
  readonly sessions: number;
  /** Their sockets (unix, tcp and ssl listeners). */
  readonly sockets?: Set<net.Socket> | undefined;
  /** Its TLS server (pssl), whose certificates {@link Listeners.setTls} replaces. */
  readonly tlsServer?: tls.Server | undefined;
  /** Stop listening (WebSocket listeners also close their clients). */
  close(): Promise<void>;
}

function clientRemote(r: PassiveRemote, port: number | undefined): string {
  switch (r.kind) {
    case 'punix':
      return `unix:${r.path}`;
    case 'ptcp':
    case 'pssl': {
      const host =
        r.host === undefined || r.host === '0.0.0.0'
          ? '127.0.0.1'
          : r.host === '::'
            ? '::1'
            : r.host;
      return formatRemote({ kind: r.kind === 'ptcp' ? 'tcp' : 'ssl', host, port: port ?? r.port });
    }
  }
}

function removeSocketFile(path: string): void {
  try {
    if (existsSync(path) && lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The listeners of one server, in the order they were opened. */
export class Listeners {
  /** The bounds of the listeners' connections, with their counters. */
  readonly limits: ConnectionLimits;
  private readonly listeners: Listener[] = [];
  private unixCount = 0;
  /** Connections accepted by the listeners and not closed yet. */
  private open = 0;
  private readonly bounds: ChannelBounds;
  private tls: ServerTlsOptions | undefined;

  constructor(private readonly host: ListenerHost) {
    this.tls = host.tls;
    this.limits = host.limits ?? new ConnectionLimits();
    this.bounds = {
      limits: this.limits,
      log: (module, level, text) => host.log.write(module, level, text),
    };
  }

  /** Connections accepted by the listeners that are still open. */
  get openConnections(): number {
    return this.open;
  }

  /**
   * Whether one more connection may be accepted (`maxConnections`); logs the
   * refusal of `peer` on `remote` when not.
   */
  private admit(remote: string, peer: string): boolean {
    if (this.open < this.limits.maxConnections) return true;
    this.limits.refusedConnections++;
    this.host.log.write(
      'ovsdb_jsonrpc_server',
      'WARN',
      `${remote}: refusing connection from ${peer}: ${this.open} connections open, the most allowed (maxConnections)`,
    );
    return false;
  }

  /** Count `channel` as open until its connection closes. */
  private counted(onClose: (cb: () => void) => void): void {
    this.open++;
    let done = false;
    onClose(() => {
      if (done) return;
      done = true;
      this.open--;
    });
  }

  /** The listeners' addresses, with their bound ports. */
  get addresses(): ListenAddress[] {
    return this.listeners.map((l) => l.address);
  }

  /**
   * Listen on one more passive remote (`punix:`, `ptcp:`, `pssl:`, `ws:`, `wss:`).
   * @throws RemoteSyntaxError for an invalid remote; Error for `pssl:` or
   *   `wss:` without the tls option and for a WebSocket listener on a
   *   non-loopback address; the socket error when listening fails.
   */
  async listen(remote: string, options: RemoteOptions = {}): Promise<ListenAddress> {
    if (isWebSocketRemote(remote)) return this.listenWebSocket(remote);
    const r = parsePassiveRemote(remote);
    let server: net.Server;
    let tlsServer: tls.Server | undefined;
    const kind = r.kind;
    const listener: OpenCount = { sessions: 0, sockets: new Set() };
    if (kind === 'pssl') {
      const t = this.tls;
      if (t === undefined) throw new Error(`${remote}: a pssl: listener needs the tls option`);
      tlsServer = tls.createServer({
        ...secureContextOptions(t),
        requestCert: true,
        rejectUnauthorized: true,
      });
      tlsServer.on('secureConnection', (socket) =>
        this.accept(socket, 'ssl', remote, options, listener),
      );
      tlsServer.on('tlsClientError', (err, socket) => {
        // A client certificate that does not chain to the CA fails after the
        // handshake: Node then closes the connection (no TLS alert) and says
        // why in `authorizationError`.
        const why = socket.authorizationError;
        const text =
          why !== undefined && why !== null
            ? `certificate verify failed (${String(why)})`
            : err.message;
        const peer =
          socket.remoteAddress === undefined
            ? ''
            : `ssl:${socket.remoteAddress}:${socket.remotePort}: `;
        this.host.log.write('stream_ssl', 'WARN', `${peer}SSL_accept: ${text}`);
      });
      server = tlsServer;
    } else {
      server = net.createServer((socket) =>
        this.accept(socket, kind === 'punix' ? 'unix' : 'tcp', remote, options, listener),
      );
    }
    // A long path is bound through its directory's descriptor, kept open while listening.
    const unix = r.kind === 'punix' ? unixSocketName(r.path) : undefined;
    if (r.kind === 'punix') {
      try {
        if (existsSync(r.path) && lstatSync(r.path).isSocket()) unlinkSync(r.path);
      } catch {
        // listen reports the problem
      }
    }
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => {
        unix?.release();
        reject(e);
      };
      server.once('error', onError);
      const done = () => {
        server.off('error', onError);
        resolve();
      };
      if (r.kind === 'punix') server.listen(unix?.name ?? r.path, done);
      else server.listen({ port: r.port, host: r.host ?? '0.0.0.0' }, done);
    });
    server.on('error', (e) => this.host.log.write('reconnect', 'ERR', `${remote}: ${e.message}`));
    const bound = server.address();
    const port = typeof bound === 'object' && bound !== null ? bound.port : undefined;
    const address: ListenAddress =
      r.kind === 'punix'
        ? { remote, kind: r.kind, client: clientRemote(r, undefined), path: r.path }
        : { remote, kind: r.kind, client: clientRemote(r, port), port, host: r.host };
    this.listeners.push({
      address,
      get sessions() {
        return listener.sessions;
      },
      sockets: listener.sockets,
      tlsServer,
      close: () =>
        new Promise<void>((resolve) =>
          server.close(() => {
            unix?.release();
            resolve();
          }),
        ),
    });
    this.host.log.write(
      'socket_util',
      'INFO',
      port === undefined ? `${remote}: listening` : `${remote}: listening on port ${port}`,
    );
    return address;
  }

  /**
   * Stop the listener opened for `remote` (as given to {@link Listeners.listen})
   * and remove its unix socket file; sessions it accepted stay connected.
   * Resolves false when no listener has that remote.
   */
  async unlisten(remote: string, closeSessions = false): Promise<boolean> {
    const i = this.listeners.findIndex((l) => l.address.remote === remote);
    const l = i < 0 ? undefined : this.listeners.splice(i, 1)[0];
    if (l === undefined) return false;
    if (closeSessions) for (const socket of l.sockets ?? []) socket.destroy();
    await l.close();
    if (l.address.path !== undefined) removeSocketFile(l.address.path);
    return true;
  }

  /**
   * Stop every listener. The listeners start closing at once; resolves when
   * all are closed and their unix socket files removed.
   */
  async close(): Promise<void> {
    const closing = this.listeners.map((l) => l.close());
    await Promise.all(closing);
    for (const l of this.listeners) {
      if (l.address.path !== undefined) removeSocketFile(l.address.path);
    }
  }

  /**
   * A WebSocket listener: one session per client, one JSON-RPC message per
   * text frame. Its module (and the `ws` package) is loaded when the first
   * one is opened, so that a server without one does not load it at start.
   */
  private async listenWebSocket(remote: string): Promise<ListenAddress> {
    const t = this.host.tls;
    const { listenWebSocket } = await import('./ws-listener.js');
    const ws = await listenWebSocket(
      remote,
      (channel) => {
        if (this.host.closing()) {
          channel.abort();
          return;
        }
        this.counted((cb) => channel.onClose(cb));
        this.host.startSession(channel);
      },
      {
        tls: t === undefined ? undefined : { key: t.key, cert: t.cert },
        allowOrigins: this.host.allowOrigins,
        bounds: this.bounds,
        admit: () => this.admit(remote, 'a WebSocket client'),
      },
    );
    const url = new URL(ws.url);
    const address: ListenAddress = {
      remote,
      kind: url.protocol === 'wss:' ? 'wss' : 'ws',
      client: ws.url,
      port: ws.port,
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    };
    this.listeners.push({ address, sessions: 0, close: () => ws.close() });
    this.host.log.write('socket_util', 'INFO', `${remote}: listening on port ${ws.port}`);
    return address;
  }

  /**
   * Use `t` for the `pssl:` listeners opened from now on and for the new
   * connections of those open (the connections made keep theirs).
   */
  setTls(t: ServerTlsOptions | undefined): void {
    this.tls = t;
    if (t === undefined) return;
    for (const l of this.listeners) l.tlsServer?.setSecureContext(secureContextOptions(t));
  }

  /** The sessions open on the listener of `remote` (undefined: no such listener). */
  sessionsOf(remote: string): number | undefined {
    return this.listeners.find((l) => l.address.remote === remote)?.sessions;
  }

  /** A connection accepted on a unix, tcp or ssl listener: name it and serve it. */
  private accept(
    socket: net.Socket,
    kind: 'unix' | 'tcp' | 'ssl',
    remote: string,
    options: RemoteOptions,
    listener: OpenCount,
  ): void {
    if (this.host.closing()) {
      socket.destroy();
      return;
    }
    const peer =
      kind === 'unix'
        ? 'a unix client'
        : `${kind}:${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    if (!this.admit(remote, peer)) {
      socket.on('error', () => undefined);
      socket.destroy();
      return;
    }
    this.counted((cb) => socket.once('close', cb));
    let name: string;
    if (kind === 'unix') {
      this.unixCount++;
      name = `unix#${this.unixCount}`;
    } else {
      const host = socket.remoteAddress ?? '?';
      name = `${kind}:${host.includes(':') ? `[${host}]` : host}:${socket.remotePort}`;
      socket.setNoDelay(true);
    }
    listener.sessions++;
    listener.sockets.add(socket);
    socket.once('close', () => {
      listener.sessions--;
      listener.sockets.delete(socket);
    });
    const peerId =
      kind === 'ssl' ? peerCommonName((socket as tls.TLSSocket).getPeerCertificate()) : undefined;
    this.host.startSession(new SocketChannel(socket, name, kind !== 'unix', this.bounds), {
      ...options,
      peerId,
    });
  }
}

/** The options of a TLS secure context made of `t`. */
function secureContextOptions(t: ServerTlsOptions): tls.SecureContextOptions {
  return {
    key: t.key,
    cert: t.cert,
    ca: t.ca as string | Buffer | (string | Buffer)[],
    ...(t.minVersion === undefined ? {} : { minVersion: t.minVersion }),
    ...(t.maxVersion === undefined ? {} : { maxVersion: t.maxVersion }),
    ...(t.ciphers === undefined ? {} : { ciphers: t.ciphers }),
  };
}

/** The common name of a peer certificate's subject (the last, as OpenSSL lists them), if any. */
function peerCommonName(cert: tls.PeerCertificate | undefined): string | undefined {
  const cn = cert?.subject?.CN as string | string[] | undefined;
  return Array.isArray(cn) ? cn[cn.length - 1] : cn;
}
