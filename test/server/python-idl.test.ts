/**
 * Open vSwitch's own Python IDL (`ovs.db.idl` from Debian's
 * python3-openvswitch, run by /usr/bin/python3) against ovsdb-server and
 * against the `ovnkit-server` program, on the installed NB schema: the
 * scenario of fixtures/idl_client.py (a full sync, a conditional monitor
 * changed with `cond_change`, insert / update / delete with `commit_block`,
 * `increment`, a server-side constraint error, a verify conflict answered
 * "try again" and its retry, malformed lock requests, a lock held, contended
 * and handed over, a forced reconnection, a reconnect after the server is
 * killed and restarted on the same socket and file) must observe the same
 * thing on both, UUIDs masked: ovnkit-server with `--history=0`, as a
 * standalone ovsdb-server keeps no transactions for monitor_cond_since; with
 * its default history, the same but for a forced reconnection that resumes.
 */

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { type FileServer, type Kind, ROOT, startFileServer } from './file-servers.js';

const NB_SCHEMA = '/usr/share/ovn/ovn-nb.ovsschema';
const PYTHON = '/usr/bin/python3';
const CLIENT = join(ROOT, 'test/server/fixtures/idl_client.py');
const KINDS: readonly Kind[] = ['ovsdb-server', 'ovnkit-server'];
const tools = requireOvsdbServer(false);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Each distinct UUID becomes `<Un>`, numbered in order of appearance. */
function masker(): (text: string) => string {
  const labels = new Map<string, string>();
  return (text) =>
    text.replace(UUID, (u) => {
      let l = labels.get(u);
      if (l === undefined) {
        l = `<U${labels.size + 1}>`;
        labels.set(u, l);
      }
      return l;
    });
}

/**
 * A duplicate-index error names its two rows in the order of their column
 * values, `_uuid` included: which of two inserted rows is "First" depends on
 * the random UUIDs, so both get one label.
 */
function sameRowsAnyOrder(text: string): string {
  return text.replace(
    /First row, with UUID [0-9a-f-]{36}, was inserted by this transaction\. {2}Second row, with UUID [0-9a-f-]{36}, was inserted/,
    'First row, with UUID <inserted>, was inserted by this transaction.  Second row, with UUID <inserted>, was inserted',
  );
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-pyidl-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Run the client against `kind`; its JSON lines, masked. */
async function observe(
  kind: Kind,
  extra: readonly string[] = [],
): Promise<Record<string, unknown>[]> {
  const d = await mkdtemp(join(dir, `${kind}-`));
  const db = join(d, 'nb.db');
  await runTool(tools.ovsdbTool, ['create', db, NB_SCHEMA]);
  let server: FileServer = await startFileServer(kind, d, db, extra);
  try {
    await runTool('ovn-nbctl', [
      `--db=unix:${server.sock}`,
      'init',
      '--',
      'ls-add',
      'sw0',
      '--',
      'ls-add',
      'sw1',
    ]);
    const child = spawn(PYTHON, [CLIENT, `unix:${server.sock}`, NB_SCHEMA], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => {
      stderr += t;
    });
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    const mask = masker();
    const events: Record<string, unknown>[] = [];
    try {
      for await (const line of createInterface({ input: child.stdout })) {
        const event = JSON.parse(mask(sameRowsAnyOrder(line))) as Record<string, unknown>;
        events.push(event);
        if (event['event'] === 'restart') {
          await server.kill();
          server = await startFileServer(kind, d, db, extra);
          child.stdin.write('\n');
        }
      }
      const code = await exited;
      expect(code, `${kind}: idl_client.py exited ${code}: ${stderr}`).toBe(0);
    } finally {
      clearTimeout(timer);
      child.kill('SIGKILL');
    }
    return events;
  } finally {
    await server.kill();
  }
}

describe('the Python IDL (python3-openvswitch) on ovsdb-server and on ovnkit-server', () => {
  it('observes the same sync, conditions, writes, conflict, locks and reconnect', async () => {
    expect(existsSync(PYTHON), `${PYTHON} (python3-openvswitch) is missing`).toBe(true);
    const seen = {} as Record<Kind, Record<string, unknown>[]>;
    // With --history=0 ovnkit-server answers monitor_cond_since as a standalone
    // ovsdb-server does (found false: no transaction history); see below for the default.
    for (const kind of KINDS)
      seen[kind] = await observe(kind, kind === 'ovnkit-server' ? ['--history=0'] : []);
    const real = seen['ovsdb-server'];
    // What the scenario means to observe, on the reference server.
    expect(real.map((e) => e['event'])).toEqual([
      'sync',
      'cond',
      'cond',
      'cond',
      'cond',
      'cond',
      'insert',
      'update',
      'delete',
      'increment',
      'constraint',
      'verify',
      'lock-request',
      'lock-request',
      'lock-request',
      'lock',
      'lock',
      'lock',
      'force-reconnect',
      'restart',
      'reconnected',
      'done',
    ]);
    for (const e of real) if ('ok' in e) expect(e['ok'], JSON.stringify(e)).toBe(true);
    expect(real.find((e) => e['event'] === 'increment')).toMatchObject({
      commits: [
        ['success', 1],
        ['success', 2],
      ],
    });
    expect(real.find((e) => e['event'] === 'verify')).toMatchObject({
      first: 'success',
      conflict: 'try again',
      retry: 'success',
      final: { writer: 'b', saw: 'a' },
    });
    expect(real.find((e) => e['event'] === 'lock')).toMatchObject({
      a: true,
      b: false,
      b_contended: true,
    });
    expect(real.find((e) => e['event'] === 'reconnected')).toMatchObject({
      status: 'success',
      a: ['after-restart', 'sw0', 'sw1'],
    });
    const table = KINDS.map((k) => `${k}:\n${seen[k].map((e) => JSON.stringify(e)).join('\n')}`);
    expect(seen['ovnkit-server'], table.join('\n\n')).toEqual(real);
    expect(real.find((e) => e['event'] === 'force-reconnect')?.['found']).toEqual([false, false]);

    // By default ovnkit-server keeps transactions for monitor_cond_since: the forced
    // reconnection to the same server resumes (found true) instead of resyncing, and
    // the Idl ends up with the same contents. The server's database file gives the
    // transactions their ids, so after a restart the history is rebuilt from the
    // file with the same ids: the reconnection after the restart resumes too.
    const resumed = await observe('ovnkit-server');
    const expected = real.map((e) =>
      e['event'] === 'force-reconnect'
        ? { ...e, found: [false, true] }
        : e['event'] === 'reconnected'
          ? { ...e, monitor_cond_since_found: [false, true, true] }
          : e,
    );
    expect(resumed, resumed.map((e) => JSON.stringify(e)).join('\n')).toEqual(expected);
  }, 300_000);
});
