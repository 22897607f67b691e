/**
 * `ovnkit-server` (src/server/cli.ts): argument handling in-process, and the
 * program itself: it listens, serves ovn-nbctl-style clients, and on SIGTERM
 * writes its snapshot and exits 0.
 */

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { type CliIo, startCli } from '../../src/server/cli.js';
import { OvsdbServer } from '../../src/server/core-index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const NB = join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema');
const CLI = join(ROOT, 'src/server/cli.ts');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(): CliIo & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    stdout: (t: string) => {
      o.out += t;
    },
    stderr: (t: string) => {
      o.err += t;
    },
  };
  return o;
}

describe('startCli', () => {
  it('starts a server on the given listeners and prints them', async () => {
    const out = io();
    const server = await startCli(
      ['--schema', NB, '--listen', 'ptcp:0:127.0.0.1', '--history', '5'],
      out,
    );
    expect(server).toBeInstanceOf(OvsdbServer);
    const s = server as OvsdbServer;
    try {
      expect(out.out).toBe(`listening on ${s.remotes[0]}\n`);
      const conn = await connect(s.remotes[0] as string);
      expect(await conn.listDbs()).toEqual(['OVN_Northbound', '_Server']);
      conn.close();
    } finally {
      await s.close();
    }
  });

  it.each([
    [[], /give at least one --schema FILE/, 2],
    [['--schema', NB], /give at least one --listen REMOTE/, 2],
    [
      ['--schema', '/nonexistent.ovsschema', '--listen', 'ptcp:0'],
      /cannot read schema file \/nonexistent\.ovsschema: no such file/,
      2,
    ],
    [['--schema', NB, '--listen', 'tcp:1.2.3.4:5'], /is an active method/, 1],
    [
      ['--schema', NB, '--listen', 'ptcp:0', '--probe-interval', 'soon'],
      /--probe-interval must be a non-negative integer/,
      2,
    ],
    [['--schema', NB, '--listen', 'ptcp:0', '--private-key', 'k.pem'], /go together/, 2],
    [['--bogus'], /Unknown option '--bogus'/, 2],
  ] as const)('%j is refused', async (args, message, code) => {
    const out = io();
    expect(await startCli(args, out)).toBe(code);
    expect(out.err).toMatch(message);
  });

  it('rejects an invalid schema naming the file', async () => {
    const bad = join(dir, 'bad.ovsschema');
    await writeFile(
      bad,
      JSON.stringify({ name: 'X', version: '1.0.0', tables: { T: { columns: {} } } }),
    );
    const out = io();
    expect(await startCli(['--schema', bad, '--listen', 'ptcp:0'], out)).toBe(2);
    expect(out.err).toContain(`invalid schema ${bad}`);
  });

  it('--help prints the usage', async () => {
    const out = io();
    expect(await startCli(['--help'], out)).toBe(0);
    expect(out.out).toContain('ovnkit-server --schema FILE');
  });
});

describe('the ovnkit-server program', () => {
  it('serves, and on SIGTERM saves its snapshot and exits 0', async () => {
    const sock = join(dir, 'nb.sock');
    const snapshot = join(dir, 'nb.json');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--schema', NB, '--listen', `punix:${sock}`, '--db', snapshot],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (t: string) => {
      out += t;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      for (let i = 0; i < 300 && !out.includes('listening on'); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(out).toBe(`listening on unix:${sock}\n`);
      const conn = await connect(`unix:${sock}`);
      await conn.transact('OVN_Northbound', [
        { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } },
      ]);
      conn.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(existsSync(snapshot)).toBe(true);
    expect(existsSync(sock)).toBe(false);
  }, 30_000);
});
