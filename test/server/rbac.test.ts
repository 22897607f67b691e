/**
 * Role-based access control against ovsdb-server 3.1: an SB database (OVN
 * 23.03's schema) served with `ovn-ctl`'s options (`db:` remotes and TLS),
 * RBAC rows as `ovn-northd` writes them for `ovn-controller`, and a
 * `Connection` row with role `ovn-controller` on a `pssl:` remote (the
 * client's certificate names the chassis) and on a `ptcp:` remote (no
 * certificate: no identity). One sequence of allowed and refused inserts,
 * updates, mutations and deletes gives byte-for-byte the same replies on
 * both servers, UUIDs masked.
 */

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as tls from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPki, type Pki, requireOvsdbServer } from '../../src/testing/index.js';
import { socketAccepts } from '../../src/testing/processes.js';
import { cutJsonTexts } from '../helpers/server.js';
import { freePort } from '../hostile/helpers.js';
import { type FileServer, type Kind, startFileServer } from './file-servers.js';
import { SB_SCHEMA } from './northd-pair.js';

const run = promisify(execFile);
const tools = requireOvsdbServer(true);
const KINDS: readonly Kind[] = ['ovsdb-server', 'ovnkit-server'];
const DB = 'OVN_Southbound';

let dir: string;
let pki: Pki;
const servers = new Map<Kind, { server: FileServer; pssl: number; ptcp: number }>();

/** The RBAC rows `ovn-northd` 23.03 writes for `ovn-controller` (the tables this test uses). */
function rbacRows(): unknown[] {
  const perms: [string, string[], boolean, string[]][] = [
    [
      'Chassis',
      ['name'],
      true,
      [
        'nb_cfg',
        'external_ids',
        'encaps',
        'vtep_logical_switches',
        'other_config',
        'transport_zones',
      ],
    ],
    ['Encap', ['chassis_name'], true, ['type', 'options', 'ip']],
    ['Port_Binding', [''], false, ['chassis', 'encap', 'up', 'virtual_parent']],
    ['MAC_Binding', [''], true, ['logical_port', 'ip', 'mac', 'datapath', 'timestamp']],
  ];
  return [
    ...perms.map(([table, authorization, insertDelete, update]) => ({
      op: 'insert',
      table: 'RBAC_Permission',
      'uuid-name': `p_${table}`,
      row: {
        table,
        authorization: ['set', authorization],
        insert_delete: insertDelete,
        update: ['set', update],
      },
    })),
    {
      op: 'insert',
      table: 'RBAC_Role',
      row: {
        name: 'ovn-controller',
        permissions: ['map', perms.map(([t]) => [t, ['named-uuid', `p_${t}`]])],
      },
    },
    // What an administrator made: another chassis, a datapath and a port.
    {
      op: 'insert',
      table: 'Encap',
      'uuid-name': 'e',
      row: { type: 'geneve', ip: '10.0.0.9', chassis_name: 'hv-other' },
    },
    {
      op: 'insert',
      table: 'Chassis',
      row: { name: 'hv-other', hostname: 'other', encaps: ['named-uuid', 'e'] },
    },
    { op: 'insert', table: 'Datapath_Binding', 'uuid-name': 'dp', row: { tunnel_key: 1 } },
    {
      op: 'insert',
      table: 'Port_Binding',
      row: { logical_port: 'lp1', datapath: ['named-uuid', 'dp'], tunnel_key: 1 },
    },
  ];
}

/** The client's operations, one transaction each (its certificate's CN is `client`). */
const SEQUENCE: unknown[][] = [
  // Its own chassis with its encapsulation: allowed.
  [
    {
      op: 'insert',
      table: 'Encap',
      'uuid-name': 'e',
      row: { type: 'geneve', ip: '10.0.0.1', chassis_name: 'client' },
    },
    {
      op: 'insert',
      table: 'Chassis',
      row: { name: 'client', hostname: 'h1', encaps: ['named-uuid', 'e'] },
    },
  ],
  // A chassis in another name: refused.
  [{ op: 'insert', table: 'Chassis', row: { name: 'impostor' } }],
  // Its own chassis' external_ids: allowed; its hostname: not in "update", refused.
  [
    {
      op: 'update',
      table: 'Chassis',
      where: [['name', '==', 'client']],
      row: { external_ids: ['map', [['a', 'b']]] },
    },
  ],
  [{ op: 'update', table: 'Chassis', where: [['name', '==', 'client']], row: { hostname: 'h2' } }],
  // Another chassis: update, mutate and delete refused.
  [
    {
      op: 'update',
      table: 'Chassis',
      where: [['name', '==', 'hv-other']],
      row: { external_ids: ['map', []] },
    },
  ],
  [
    {
      op: 'mutate',
      table: 'Chassis',
      where: [['name', '==', 'hv-other']],
      mutations: [['external_ids', 'insert', ['map', [['x', 'y']]]]],
    },
  ],
  [{ op: 'delete', table: 'Chassis', where: [['name', '==', 'hv-other']] }],
  // Its own chassis mutated: allowed; no row selected: allowed.
  [
    {
      op: 'mutate',
      table: 'Chassis',
      where: [['name', '==', 'client']],
      mutations: [['external_ids', 'insert', ['map', [['c', 'd']]]]],
    },
  ],
  [{ op: 'update', table: 'Chassis', where: [['name', '==', 'nobody']], row: { hostname: 'h3' } }],
  // Port_Binding: "up" may be updated, rows neither inserted nor deleted.
  [
    {
      op: 'update',
      table: 'Port_Binding',
      where: [['logical_port', '==', 'lp1']],
      row: { up: true },
    },
  ],
  [
    {
      op: 'update',
      table: 'Port_Binding',
      where: [['logical_port', '==', 'lp1']],
      row: { tag: 5 },
    },
  ],
  [{ op: 'delete', table: 'Port_Binding', where: [['logical_port', '==', 'lp1']] }],
  // A table without permissions for the role.
  [
    {
      op: 'insert',
      table: 'Logical_Flow',
      row: { pipeline: 'ingress', table_id: 0, priority: 0, match: '1', actions: 'next;' },
    },
  ],
  // Reads are never refused; a refusal after an allowed operation undoes it.
  [
    {
      op: 'select',
      table: 'Chassis',
      where: [['name', '==', 'hv-other']],
      columns: ['name', 'external_ids'],
    },
  ],
  [
    {
      op: 'update',
      table: 'Chassis',
      where: [['name', '==', 'client']],
      row: { external_ids: ['map', [['e', 'f']]] },
    },
    { op: 'insert', table: 'Chassis', row: { name: 'second' } },
  ],
  [
    {
      op: 'select',
      table: 'Chassis',
      where: [['name', '==', 'client']],
      columns: ['external_ids'],
    },
  ],
  // Its own chassis deleted (its Encap goes with it): allowed.
  [{ op: 'delete', table: 'Chassis', where: [['name', '==', 'client']] }],
];

/** Over a connection without a certificate, the role's writes are refused for a client without identity. */
const PLAIN_SEQUENCE: unknown[][] = [
  [{ op: 'insert', table: 'Chassis', row: { name: 'client' } }],
  [
    {
      op: 'update',
      table: 'Port_Binding',
      where: [['logical_port', '==', 'lp1']],
      row: { up: false },
    },
  ],
  [{ op: 'select', table: 'Port_Binding', where: [], columns: ['logical_port', 'up'] }],
];

/** A raw JSON-RPC connection: each reply's text as the server wrote it. */
class RawText {
  private buffer = '';
  private readonly messages: string[] = [];
  private wake: (() => void) | undefined;

  constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (t: string) => {
      this.buffer += t;
      this.split();
      this.wake?.();
    });
    socket.on('error', () => {});
  }

  /** Cut complete JSON texts off the buffer. */
  private split(): void {
    const [texts, rest] = cutJsonTexts(this.buffer);
    this.messages.push(...texts);
    this.buffer = rest;
  }

  /** Send `transact` with `ops`; the reply's text. */
  async transact(ops: unknown[], id: number): Promise<string> {
    this.socket.write(JSON.stringify({ method: 'transact', params: [DB, ...ops], id }));
    const deadline = Date.now() + 10_000;
    for (;;) {
      const i = this.messages.findIndex((m) => m.includes(`"id":${id}`));
      if (i >= 0) return this.messages.splice(i, 1)[0] as string;
      if (Date.now() > deadline) throw new Error(`no reply to request ${id}`);
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 100);
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

async function tlsClient(port: number): Promise<RawText> {
  const socket = tls.connect({
    host: '127.0.0.1',
    port,
    key: readFileSync(pki.client.privateKey),
    cert: readFileSync(pki.client.certificate),
    ca: readFileSync(pki.caCert),
    checkServerIdentity: () => undefined,
  });
  await new Promise((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  return new RawText(socket);
}

async function tcpClient(port: number): Promise<RawText> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return new RawText(socket);
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ovnkit-rbac-'));
  pki = await createPki(join(dir, 'pki'), { unrelatedCa: false });
  for (const kind of KINDS) {
    const sub = join(dir, kind);
    mkdirSync(sub);
    const db = join(sub, 'sb.db');
    await run(tools.ovsdbTool, ['create', db, SB_SCHEMA]);
    // ovn-ctl's options for the SB database.
    const server = await startFileServer(kind, sub, db, [
      `--remote=db:${DB},SB_Global,connections`,
      `--private-key=db:${DB},SSL,private_key`,
      `--certificate=db:${DB},SSL,certificate`,
      `--ca-cert=db:${DB},SSL,ca_cert`,
      `--ssl-protocols=db:${DB},SSL,ssl_protocols`,
      `--ssl-ciphers=db:${DB},SSL,ssl_ciphers`,
    ]);
    const [pssl, ptcp] = [await freePort(), await freePort()];
    servers.set(kind, { server, pssl, ptcp });
    const sbctl = (...args: string[]) =>
      run('ovn-sbctl', [`--db=unix:${server.sock}`, '--timeout=20', ...args], { timeout: 30_000 });
    await sbctl('init');
    await sbctl('set-ssl', pki.server.privateKey, pki.server.certificate, pki.caCert);
    await sbctl(
      'set-connection',
      'role=ovn-controller',
      `pssl:${pssl}:127.0.0.1`,
      'role=ovn-controller',
      `ptcp:${ptcp}:127.0.0.1`,
    );
    await run(tools.ovsdbClient, [
      'transact',
      `unix:${server.sock}`,
      JSON.stringify([DB, ...rbacRows()]),
    ]);
    for (const port of [pssl, ptcp]) {
      const deadline = Date.now() + 15_000;
      while (!(await socketAccepts({ host: '127.0.0.1', port }))) {
        if (Date.now() > deadline) throw new Error(`${kind}: nothing listens on ${port}`);
        await sleep(50);
      }
    }
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.server.kill()));
  rmSync(dir, { recursive: true, force: true });
});

/** The replies of `kind` to `sequence` over the client `open` makes, UUIDs masked. */
async function replies(
  kind: Kind,
  open: (s: { pssl: number; ptcp: number }) => Promise<RawText>,
  sequence: unknown[][],
): Promise<string[]> {
  const c = await open(servers.get(kind) as { pssl: number; ptcp: number });
  try {
    const out: string[] = [];
    for (const [i, ops] of sequence.entries()) {
      out.push((await c.transact(ops, i + 1)).replace(UUID, '<uuid>'));
    }
    return out;
  } finally {
    c.close();
  }
}

describe('RBAC for role ovn-controller, ovnkit-server against ovsdb-server', () => {
  it('a pssl client (certificate CN "client") gets the same replies to allowed and refused writes', async () => {
    const [real, ours] = await Promise.all(
      KINDS.map((k) => replies(k, (s) => tlsClient(s.pssl), SEQUENCE)),
    );
    expect(ours).toEqual(real);
    const refused = (real as string[]).filter((r) => r.includes('permission error'));
    expect(refused.length).toBe(9);
    expect(real?.[1]).toContain(
      'RBAC rules for client \\"client\\" role \\"ovn-controller\\" prohibit row insertion into table \\"Chassis\\".',
    );
  });

  it('a ptcp client (no certificate) gets the same refusals', async () => {
    const [real, ours] = await Promise.all(
      KINDS.map((k) => replies(k, (s) => tcpClient(s.ptcp), PLAIN_SEQUENCE)),
    );
    expect(ours).toEqual(real);
    expect(real?.[0]).toContain('permission error');
  });
});
