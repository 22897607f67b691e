/**
 * Starting `ovnkit-server` against what a crash, a container restart or a
 * mistake leaves behind, side by side with ovsdb-server 3.1:
 *
 * - a pidfile naming a live process that is no server (its pid reused):
 *   both start, and leave that process alone;
 * - a pidfile held by a running server of the same kind: both refuse
 *   (`already running as pid N`) before touching anything, and the running
 *   server keeps its sockets and goes on answering;
 * - a FIFO given as the database file: ovnkit-server refuses it at once,
 *   naming the file (ovsdb-server 3.1 blocks opening it until a writer
 *   comes, so it is not run here).
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { liveChildren, runTool } from '../../src/testing/processes.js';
import { type Kind, serverArgs, startFileServer } from '../server/file-servers.js';
import { NB_SCHEMA, runToExit, transactAsBystander } from './helpers.js';

const KINDS = ['ovnkit-server', 'ovsdb-server'] as const satisfies readonly Kind[];
let dir: string;
let db: string;
const others: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-hostile-startup-'));
  db = join(dir, 'nb.db');
  await runTool(requireOvsdbServer(false).ovsdbTool, ['create', db, NB_SCHEMA]);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterAll(() => {
  for (const c of others) c.kill('SIGKILL');
});

/** A live process that is not a server (what a reused pid names). */
function unrelatedProcess(): ChildProcess {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  liveChildren.add(child);
  others.push(child);
  return child;
}

function appctl(ctl: string, ...args: string[]): Promise<string> {
  return runTool(requireOvsdbServer(false).ovsAppctl, ['-t', ctl, ...args]);
}

describe('a stale pidfile', () => {
  it.each(KINDS)('naming an unrelated live process: %s starts', async (kind) => {
    const other = unrelatedProcess();
    const pidfile = join(dir, 'x.pid');
    writeFileSync(pidfile, `${other.pid}\n`);
    const server = await startFileServer(kind, dir, db);
    try {
      expect(Number.parseInt(readFileSync(pidfile, 'utf8'), 10)).toBe(server.child.pid);
      expect(await transactAsBystander(`unix:${server.sock}`, 'started')).toEqual([
        { name: 'started' },
      ]);
      expect(other.exitCode).toBeNull();
      expect(other.signalCode).toBeNull();
    } finally {
      await server.kill();
    }
  });
});

describe('a pidfile held by a running server', () => {
  it.each(KINDS)(
    '%s refuses to start a second one, which leaves the first untouched',
    async (kind) => {
      const first = await startFileServer(kind, dir, db);
      try {
        const r = await runToExit(kind, serverArgs(dir, db));
        expect(r.code).not.toBe(0);
        expect(r.code).not.toBeNull();
        expect(r.stderr).toContain(
          `${join(dir, 'x.pid')}: already running as pid ${first.child.pid}`,
        );
        // The first still has its pidfile, its sockets, and answers.
        expect(Number.parseInt(readFileSync(join(dir, 'x.pid'), 'utf8'), 10)).toBe(first.child.pid);
        expect(lstatSync(first.sock).isSocket()).toBe(true);
        expect(lstatSync(first.ctl).isSocket()).toBe(true);
        expect(await transactAsBystander(`unix:${first.sock}`, 'still-there')).toEqual([
          { name: 'still-there' },
        ]);
        expect(await appctl(first.ctl, 'version')).toMatch(/\(Open vSwitch\)|\(ovnkit\)/);
      } finally {
        await first.kill();
      }
    },
  );
});

describe('a FIFO as the database file', () => {
  it('ovnkit-server refuses it at once, naming the file', async () => {
    const fifo = join(dir, 'fifo.db');
    execFileSync('mkfifo', [fifo]);
    const r = await runToExit('ovnkit-server', serverArgs(dir, fifo));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${fifo}: not a regular file but a FIFO`);
  });
});
