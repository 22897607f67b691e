/**
 * A TCP proxy on 127.0.0.1 in front of a server's `tcp:` remote, whose
 * `freeze()` stops forwarding in both directions while keeping every socket
 * open: a network path that drops everything without closing anything, as
 * far as the application can tell. (The proxy's kernel still acknowledges
 * TCP keepalives: only the application-level probe can find it.)
 */

import * as net from 'node:net';

/** See the module docs. */
export class FreezableTcpProxy {
  /** `tcp:127.0.0.1:<port>` to give the client. */
  remote = '';
  private frozen = false;
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;

  private constructor(
    private readonly host: string,
    private readonly port: number,
  ) {
    this.server = net.createServer((c) => this.accept(c));
  }

  /** Start a proxy to `target` (`tcp:<host>:<port>`). */
  static async start(target: string): Promise<FreezableTcpProxy> {
    const m = /^tcp:(.+):(\d+)$/.exec(target);
    if (!m) throw new Error(`not a tcp: remote: ${target}`);
    const p = new FreezableTcpProxy(m[1]!, Number(m[2]));
    await new Promise<void>((ok, fail) => {
      p.server.once('error', fail);
      p.server.listen(0, '127.0.0.1', () => ok());
    });
    p.remote = `tcp:127.0.0.1:${(p.server.address() as net.AddressInfo).port}`;
    return p;
  }

  /** Stop forwarding (and drop what arrives), keeping the connections open. */
  freeze(): void {
    this.frozen = true;
  }

  /** Stop the proxy and its connections. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect({ host: this.host, port: this.port });
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => {
        this.sockets.delete(s);
        // Frozen, nothing passes: not even a close (ovsdb-server's own probe
        // drops its side once its echoes go unanswered).
        if (this.frozen) return;
        client.destroy();
        upstream.destroy();
      });
      s.on('error', () => s.destroy());
    }
    client.on('data', (b: Buffer) => {
      if (!this.frozen) upstream.write(b);
    });
    upstream.on('data', (b: Buffer) => {
      if (!this.frozen) client.write(b);
    });
  }
}
