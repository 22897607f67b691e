/**
 * Kubernetes probes for the controller process (`main.ts --probes
 * HOST:PORT`), read from the database client's health:
 *
 * - `GET /healthz` (liveness): 200 while the client runs, 503 once it has
 *   closed (it gave up reconnecting): restarting the process is then the
 *   way out. A client that is only reconnecting stays live: a new process
 *   would reach the same servers no sooner.
 * - `GET /readyz` (readiness): 200 while the client is in sync (connected,
 *   every monitor's contents applied: the replica the controllers read is
 *   current), 503 otherwise: while connecting, reconnecting after a lost
 *   server, and resynchronising.
 *
 * Both answer the health as JSON (`client.health`: connected, in sync, the
 * server and its role, the age of the last message and of the last update,
 * whether the lock is held), so `curl` shows why a probe fails.
 * @module
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientHealth, ClientState } from 'ovnkit/client';

/** What the probes read of the database client. */
export interface ProbedClient {
  readonly health: ClientHealth;
  readonly status: { readonly state: ClientState };
}

/** The running probe endpoint. */
export interface ProbeServer {
  /** `http://HOST:PORT` (with the port bound). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serve `/healthz` and `/readyz` for `client` on `address` (`HOST:PORT`,
 * `[IPv6]:PORT`; port 0 picks a free one).
 * @throws TypeError for an address that is not `HOST:PORT`; the listen error.
 */
export async function serveProbes(client: ProbedClient, address: string): Promise<ProbeServer> {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address);
  if (m === null || Number(m[3]) > 65535) {
    throw new TypeError(`--probes: expected HOST:PORT (e.g. 127.0.0.1:8080), got ${address}`);
  }
  const host = (m[1] ?? m[2])!;
  const http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const health = client.health;
    let ok: boolean;
    if (path === '/healthz') ok = client.status.state !== 'closed';
    else if (path === '/readyz') ok = health.inSync;
    else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('try /healthz or /readyz\n');
      return;
    }
    res
      .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
      .end(`${JSON.stringify({ ok, state: client.status.state, ...health })}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(Number(m[3]), host, () => resolve());
  });
  const bound = http.address() as AddressInfo;
  const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${shown}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
