/**
 * `ovnkit-server` (src/server/program/cli.ts): the command line read as ovsdb-server
 * reads its own, in-process; the control socket answering the real
 * `ovs-appctl`; and the program started with ovsdb-server's own command
 * line (`--detach --no-chdir --pidfile --unixctl --log-file --remote FILE`),
 * side by side with ovsdb-server, stopped by `ovs-appctl exit`.
 */

import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { OvsdbServer } from '../../src/server/core-index.js';
import { type CliServer, startCli } from '../../src/server/program/cli.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { accepts, captureIo, command, type Kind, ROOT } from './file-servers.js';

const NB = join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema');
const tools = requireOvsdbServer(false);

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const io = captureIo;

async function started(args: string[]): Promise<CliServer> {
  const out = io();
  const r = await startCli(args, out);
  if (typeof r === 'number') throw new Error(`startCli exited ${r}: ${out.err}`);
  return r;
}

const appctl = (ctl: string, ...args: string[]) => runTool(tools.ovsAppctl, ['-t', ctl, ...args]);

describe('startCli', () => {
  it('serves --schema databases on --listen remotes and prints them', async () => {
    const out = io();
    const r = await startCli(
      ['--schema', NB, '--listen', 'ptcp:0:127.0.0.1', '--history', '5'],
      out,
    );
    expect(typeof r).toBe('object');
    const s = (r as CliServer).server;
    expect(s).toBeInstanceOf(OvsdbServer);
    try {
      expect(out.out).toBe(`listening on ${s.remotes[0]}\n`);
      const conn = await connect(s.remotes[0] as string);
      expect(await conn.listDbs()).toEqual(['OVN_Northbound', '_Server']);
      conn.close();
    } finally {
      await (r as CliServer).stop();
    }
    expect(await (r as CliServer).exited).toBe(0);
  });

  it.each([
    [[], /give a database file \(or --schema FILE\)/, 2],
    [['--schema', NB], /give at least one --remote REMOTE/, 2],
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
    [['--bogus'], /unrecognized option '--bogus'/, 2],
    [
      ['--sync-from=tcp:127.0.0.1:6641', 'x.db'],
      /option '--sync-from' is not supported by ovnkit-server/,
      2,
    ],
    [['--active', 'x.db'], /option '--active' is not supported by ovnkit-server/, 2],
    [['--detach=yes'], /option '--detach' doesn't allow an argument/, 2],
    [['-x'], /invalid option -- 'x'/, 2],
    [['--unixctl'], /option '--unixctl' requires an argument/, 2],
    [
      ['--config-file=/tmp/never.json', '--remote=db:OVN_Northbound,NB_Global,connections'],
      /--config-file is mutually exclusive with --remote/,
      2,
    ],
    [
      ['--config-file=/tmp/never.json', 'x.db'],
      /Databases should be specified in a config file/,
      2,
    ],
    [
      ['--ssl-protocols=SSLv2', '--remote=ptcp:0', 'x.db'],
      /--ssl-protocols=SSLv2: SSL protocol not recognized/,
      2,
    ],
    [['-vconsole:file'], /processing "console:file": cannot specify multiple destinations/, 2],
    [['-vPATTERN:console:%m'], /"PATTERN" settings are not supported/, 2],
    [
      ['--schema', NB, '--schema', NB, '--db', 'x.db', '--listen', 'ptcp:0'],
      /--db keeps the database of exactly one --schema/,
      2,
    ],
    [
      ['--remote=punix:/tmp/never.sock', '/nonexistent/x.db'],
      /\/nonexistent\/x\.db: cannot open: no such file or directory/,
      1,
    ],
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

  it('--help and --version', async () => {
    const out = io();
    expect(await startCli(['--help'], out)).toBe(0);
    expect(out.out).toMatch(/^Usage:\n\s+ovnkit-server --schema FILE/);
    expect(out.out).toContain('ovnkit-server [OPTIONS] DATABASE...');
    const v = io();
    expect(await startCli(['-V'], v)).toBe(0);
    expect(v.out).toMatch(/^ovnkit-server \(ovnkit\) \d+\.\d+\.\d+/);
  });

  it('answers ovs-appctl on --unixctl: memory/show, list-dbs, remotes, compact, vlog, exit', async () => {
    const db = join(dir, 'ctl.db');
    await runTool(tools.ovsdbTool, ['create', db, NB]);
    const sock = join(dir, 'ctl.sock');
    const ctl = join(dir, 'ctl.ctl');
    const log = join(dir, 'ctl.log');
    const r = await started([
      `--remote=punix:${sock}`,
      `--unixctl=${ctl}`,
      `--log-file=${log}`,
      '-vfile:dbg',
      db,
    ]);
    const commands = await appctl(ctl, 'list-commands');
    for (const c of [
      'exit',
      'ovsdb-server/compact',
      'ovsdb-server/add-remote',
      'ovsdb-server/remove-remote',
      'memory/show',
    ]) {
      expect(commands).toContain(`  ${c}`);
    }
    expect(await appctl(ctl, 'version')).toMatch(/^ovnkit-server \(ovnkit\) /);
    expect(await appctl(ctl, 'ovsdb-server/list-dbs')).toBe('OVN_Northbound\n_Server\n');
    const conn = await connect(`unix:${sock}`);
    await conn.transact('OVN_Northbound', [
      { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } },
    ]);
    await conn.monitor('OVN_Northbound', 'm', { Logical_Switch: { columns: ['name'] } });
    // 13 cells: one Logical_Switch (13 columns, _uuid and _version included); 20: _Server's two Database rows.
    expect(await appctl(ctl, 'memory/show')).toMatch(
      /^atoms:\d+ cells:33 monitors:1 n-weak-refs:0 sessions:1\n$/,
    );
    await appctl(ctl, 'ovsdb-server/add-remote', 'ptcp:0:127.0.0.1');
    expect(await appctl(ctl, 'ovsdb-server/list-remotes')).toBe(
      `ptcp:0:127.0.0.1\npunix:${sock}\n`,
    );
    const tcp = r.server.addresses.find((a) => a.kind === 'ptcp');
    expect(tcp?.port).toBeGreaterThan(0);
    await appctl(ctl, 'ovsdb-server/remove-remote', 'ptcp:0:127.0.0.1');
    expect(await appctl(ctl, 'ovsdb-server/list-remotes')).toBe(`punix:${sock}\n`);
    await expect(appctl(ctl, 'ovsdb-server/remove-remote', 'ptcp:1')).rejects.toThrow(
      /no such remote/,
    );
    await appctl(ctl, 'ovsdb-server/compact');
    expect((await runTool(tools.ovsdbTool, ['show-log', db])).match(/^record \d+/gm)).toHaveLength(
      2,
    );
    await expect(appctl(ctl, 'ovsdb-server/compact', '_Server')).rejects.toThrow(
      /cannot compact built-in databases/,
    );
    await expect(appctl(ctl, 'ovsdb-server/remove-db', 'Nope')).rejects.toThrow(
      /Failed to find the database\./,
    );
    await appctl(ctl, 'ovsdb-server/remove-db', 'OVN_Northbound');
    expect(await appctl(ctl, 'ovsdb-server/list-dbs')).toBe('_Server\n');
    await appctl(ctl, 'ovsdb-server/add-db', db);
    expect(await appctl(ctl, 'ovsdb-server/list-dbs')).toBe('OVN_Northbound\n_Server\n');
    expect(r.server.database('OVN_Northbound')?.tables.get('Logical_Switch')?.rows.size).toBe(1);
    await expect(appctl(ctl, 'no/such')).rejects.toThrow(/"no\/such" is not a valid command/);
    await appctl(ctl, 'vlog/set', 'file:warn');
    await appctl(ctl, 'exit');
    expect(await r.exited).toBe(0);
    conn.close();
    expect(existsSync(sock)).toBe(false);
    expect(existsSync(ctl)).toBe(false);
    const text = readFileSync(log, 'utf8');
    expect(text).toMatch(/\|vlog\|INFO\|opened log file /);
    expect(text).toContain('|ovsdb_server|INFO|compacting OVN_Northbound database by user request');
    // At warn, the exit's INFO lines no longer reach the file.
    expect(text).not.toContain('fatal_signal');
  });
});

/** Run a program to its end: its exit code and output. */
function runProgram(
  program: string,
  args: string[],
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      out += t;
    });
    child.stderr.setEncoding('utf8').on('data', (t: string) => {
      err += t;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  return !alive(pid);
}

describe('the ovnkit-server program', () => {
  for (const kind of ['ovnkit-server', 'ovsdb-server'] as Kind[]) {
    it(`${kind} starts with ovsdb-server's command line and stops on ovs-appctl exit`, async () => {
      const d = await mkdtemp(join(dir, `${kind}-`));
      const db = join(d, 'nb.db');
      await runTool(tools.ovsdbTool, ['create', db, NB]);
      const pidfile = join(d, 'nb.pid');
      const ctl = join(d, 'nb.ctl');
      const sock = join(d, 'nb.sock');
      const log = join(d, 'nb.log');
      const line = [
        '--detach',
        '--no-chdir',
        `--pidfile=${pidfile}`,
        `--unixctl=${ctl}`,
        `--log-file=${log}`,
        `--remote=punix:${sock}`,
        db,
      ];
      const [program, args] = command(kind, line);
      const parent = await runProgram(
        program,
        kind === 'ovsdb-server' ? args.filter((a) => a !== '-vconsole:off') : args,
      );
      expect(parent.code, parent.err).toBe(0);
      // The daemon runs on: it listens and has written its pidfile.
      const pid = Number(readFileSync(pidfile, 'utf8'));
      try {
        expect(alive(pid)).toBe(true);
        expect(await accepts(sock)).toBe(true);
        const conn = await connect(`unix:${sock}`);
        await conn.transact('OVN_Northbound', [
          { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } },
        ]);
        conn.close();
        expect(await appctl(ctl, 'ovsdb-server/list-dbs')).toBe('OVN_Northbound\n_Server\n');
        await appctl(ctl, 'exit');
        expect(await gone(pid)).toBe(true);
      } finally {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
      expect(existsSync(pidfile)).toBe(false);
      expect(existsSync(sock)).toBe(false);
      expect(existsSync(ctl)).toBe(false);
      expect(readFileSync(log, 'utf8')).toMatch(/\|INFO\|/);
      const query = await runTool(tools.ovsdbTool, [
        'query',
        db,
        '["OVN_Northbound",{"op":"select","table":"Logical_Switch","where":[],"columns":["name"]}]',
      ]);
      expect(JSON.parse(query)).toEqual([{ rows: [{ name: 'sw0' }] }]);
    }, 60_000);
  }

  it('--detach: a daemon that cannot start makes the first process fail with its error', async () => {
    const pidfile = join(dir, 'fail.pid');
    const [program, args] = command('ovnkit-server', [
      '--detach',
      `--pidfile=${pidfile}`,
      '--remote=punix:/tmp/never.sock',
      join(dir, 'missing.db'),
    ]);
    const r = await runProgram(program, args);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/missing\.db: cannot open: no such file or directory/);
    expect(existsSync(pidfile)).toBe(false);
  }, 60_000);

  it('serves in the foreground, refuses a pidfile a live process holds open, and exits 0 on SIGTERM', async () => {
    const sock = join(dir, 'fg.sock');
    const file = join(dir, 'fg.db');
    const pidfile = join(dir, 'fg.pid');
    await writeFile(pidfile, `${process.pid}\n`);
    // As a running ovnkit-server holds its pidfile.
    const held = openSync(pidfile, 'r');
    const [program, args] = command('ovnkit-server', [
      '--schema',
      NB,
      '--listen',
      `punix:${sock}`,
      '--db',
      file,
      `--pidfile=${pidfile}`,
    ]);
    const refused = await runProgram(program, args).finally(() => closeSync(held));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`${pidfile}: already running as pid ${process.pid}, aborting`);
    const child = spawn(program, [...args, '--overwrite-pidfile'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      out += t;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      for (let i = 0; i < 600 && !out.includes('listening on'); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(out).toBe(`listening on unix:${sock}\n`);
      expect(readFileSync(pidfile, 'utf8')).toBe(`${child.pid}\n`);
      const conn = await connect(`unix:${sock}`);
      await conn.transact('OVN_Northbound', [
        { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } },
      ]);
      conn.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('"name":"sw0"');
    expect(existsSync(sock)).toBe(false);
    expect(existsSync(pidfile)).toBe(false);
  }, 60_000);
});
