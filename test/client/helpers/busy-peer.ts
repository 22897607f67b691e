/**
 * A scripted OVSDB server on a plain `net` server (unix or tcp), standing in
 * for an ovsdb-server that is busy building a large initial reply: it
 * answers what the database client sends first (`list_dbs`,
 * `set_db_change_aware`, `get_schema` for the `Test` schema), then, for the
 * monitor request (`monitor_cond_since`, `monitor_cond` or `monitor`),
 * writes nothing at all (no `echo` answered either: ovsdb-server is single
 * threaded) for `silenceMs`, and then sends a reply of `rows` Item rows of
 * about `rowBytes` bytes each. With `hold`, it never replies.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';
import { TEST_SCHEMA } from '../../helpers/server.js';

/** Options of {@link BusyPeer.start}. */
export interface BusyPeerOptions {
  /** Silence between the monitor request and its reply, in ms. */
  readonly silenceMs: number;
  /** Item rows in the reply. */
  readonly rows: number;
  /** Bytes of each row's `name`. */
  readonly rowBytes: number;
  /** Never send the monitor reply. */
  readonly hold?: boolean;
  /** Called when the monitor request arrives. */
  readonly onMonitor?: () => void;
}

const ZERO = '00000000-0000-0000-0000-000000000000';

interface Request {
  readonly method: string;
  readonly params?: unknown[];
  readonly id: unknown;
}

function uuid(i: number): string {
  const h = i.toString(16).padStart(12, '0');
  return `5e1f0000-0000-4000-8000-${h}`;
}

/** The monitor reply's `updates` text: `{"Item":{uuid:{"initial":{…}},…}}`. */
function updatesText(rows: number, rowBytes: number): string {
  const filler = 'x'.repeat(Math.max(0, rowBytes - 12));
  const parts: string[] = [];
  for (let i = 0; i < rows; i++) {
    parts.push(`"${uuid(i)}":{"initial":{"name":"${i}-${filler}","n":${i}}}`);
  }
  return `{"Item":{${parts.join(',')}}}`;
}

/** See the module docs. */
export class BusyPeer {
  /** `unix:<path>` or `tcp:127.0.0.1:<port>`. */
  remote = '';
  /** Connections accepted. */
  accepted = 0;
  /** Request methods received, in order. */
  readonly methods: string[] = [];
  /** Bytes of the last monitor reply sent. */
  replyBytes = 0;

  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private dir: string | undefined;

  private constructor(private readonly options: BusyPeerOptions) {
    this.server = net.createServer((s) => this.accept(s));
  }

  /** Listen on a fresh unix socket or a free tcp port of 127.0.0.1. */
  static async start(kind: 'unix' | 'tcp', options: BusyPeerOptions): Promise<BusyPeer> {
    const p = new BusyPeer(options);
    await new Promise<void>((ok, fail) => {
      p.server.once('error', fail);
      if (kind === 'unix') {
        p.dir = mkdtempSync(join(tmpdir(), 'ovnkit-busy-'));
        const path = join(p.dir, 'db.sock');
        p.remote = `unix:${path}`;
        p.server.listen(path, () => ok());
      } else {
        p.server.listen(0, '127.0.0.1', () => {
          p.remote = `tcp:127.0.0.1:${(p.server.address() as net.AddressInfo).port}`;
          ok();
        });
      }
    });
    return p;
  }

  /** Stop listening and drop every connection. */
  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  private accept(socket: net.Socket): void {
    this.accepted++;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const framer = new JsonStreamFramer();
    let busy = false;
    /** Requests read while busy: ovsdb-server answers them once it is done. */
    const backlog: Request[] = [];
    const handle = (msg: Request): void => {
      if (busy) {
        backlog.push(msg);
        return;
      }
      const send = (result: unknown) =>
        socket.write(JSON.stringify({ id: msg.id, result, error: null }));
      switch (msg.method) {
        case 'list_dbs':
          send([TEST_SCHEMA.name]);
          break;
        case 'set_db_change_aware':
          send({});
          break;
        case 'get_schema':
          send(TEST_SCHEMA);
          break;
        case 'echo':
          send(msg.params);
          break;
        case 'monitor_cond_since':
        case 'monitor_cond':
        case 'monitor': {
          busy = true;
          this.options.onMonitor?.();
          if (this.options.hold) break;
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            const updates = updatesText(this.options.rows, this.options.rowBytes);
            const result =
              msg.method === 'monitor_cond_since' ? `[false,"${ZERO}",${updates}]` : updates;
            const text = `{"id":${JSON.stringify(msg.id)},"result":${result},"error":null}`;
            this.replyBytes = Buffer.byteLength(text);
            socket.write(text);
            busy = false;
            for (const m of backlog.splice(0)) handle(m);
          }, this.options.silenceMs);
          this.timers.add(timer);
          break;
        }
        default:
          socket.write(JSON.stringify({ id: msg.id, result: null, error: 'unknown method' }));
      }
    };
    socket.on('data', (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = framer.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const m of messages) {
        const msg = m as Request;
        if (typeof msg.method !== 'string' || msg.id === null || msg.id === undefined) continue;
        this.methods.push(msg.method);
        handle(msg);
      }
    });
  }
}
