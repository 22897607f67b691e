/**
 * OVN's own `ovn-ctl` (OVN 23.03 from Debian) starting, checking and
 * stopping the NB and SB databases, with `ovnkit-server` first on PATH as
 * `ovsdb-server` (a directory holding a script of that name, the recipe in
 * the README) and, as the reference, with the real `ovsdb-server`. The same
 * steps for both: `start_nb_ovsdb`/`start_sb_ovsdb` (`--detach --monitor`,
 * `db:` remotes and TLS settings), `status_ovnnb`/`status_ovnsb`,
 * `ovn-northd` started by `ovn-ctl` building SB from an `ovn-nbctl
 * --wait=sb` transaction, a remote from `ovn-nbctl set-connection` (its
 * status written back) and gone after `del-connection`, TLS from `set-ssl`,
 * and the stop commands. Everything lives in a temporary directory
 * (OVN_RUNDIR, OVN_LOGDIR, OVN_DBDIR, OVN_SYSCONFDIR).
 */

import { execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPki, type Pki, requireOvsdbServer } from '../../src/testing/index.js';
import { socketAccepts } from '../../src/testing/processes.js';
import { freePort } from '../hostile/helpers.js';
import { CLI, type Kind } from './file-servers.js';
import { until } from './northd-pair.js';

const OVN_CTL = '/usr/share/ovn/scripts/ovn-ctl';
const run = promisify(execFile);
requireOvsdbServer(true);
if (!existsSync(OVN_CTL)) {
  const ci = process.env.CI === 'true' ? ' (CI=true: a failure)' : '';
  throw new Error(`${OVN_CTL} is not installed (apt-get install ovn-central)${ci}`);
}

const tcpAccepts = (port: number) => socketAccepts({ host: '127.0.0.1', port });
const unixAccepts = (remote: string) => socketAccepts({ path: remote.slice('unix:'.length) });

/** Whether `check` holds within `ms` (polled every 100 ms). */
const holds = (check: () => Promise<boolean> | boolean, ms = 15_000): Promise<boolean> =>
  until(
    async () => await check(),
    (v) => v,
    ms,
  );

/** The directories and environment of one ovn-ctl installation. */
interface Setup {
  readonly dir: string;
  readonly run: string;
  readonly env: NodeJS.ProcessEnv;
}

function setup(kind: Kind): Setup {
  const dir = mkdtempSync(join(tmpdir(), `ovnkit-ovnctl-${kind}-`));
  const dirs = Object.fromEntries(
    ['bin', 'run', 'log', 'db', 'etc'].map((d) => {
      mkdirSync(join(dir, d));
      return [d, join(dir, d)];
    }),
  ) as Record<'bin' | 'run' | 'log' | 'db' | 'etc', string>;
  let path = process.env.PATH ?? '';
  if (kind === 'ovnkit-server') {
    // The drop-in recipe: a directory first on PATH with an `ovsdb-server`
    // that runs ovnkit-server under that name (here from the sources).
    const shim = join(dirs.bin, 'ovsdb-server');
    writeFileSync(
      shim,
      `#!/bin/bash\nexec -a ovsdb-server "${process.execPath}" --conditions=ovnkit-source --import "${import.meta.resolve('tsx')}" "${CLI}" "$@"\n`,
    );
    chmodSync(shim, 0o755);
    path = `${dirs.bin}:${path}`;
  }
  return {
    dir,
    run: dirs.run,
    env: {
      ...process.env,
      PATH: path,
      OVN_RUNDIR: dirs.run,
      OVN_LOGDIR: dirs.log,
      OVN_DBDIR: dirs.db,
      OVN_SYSCONFDIR: dirs.etc,
      OVS_RUNDIR: dirs.run,
      OVS_LOGDIR: dirs.log,
      OVS_DBDIR: dirs.db,
    },
  };
}

async function ovnCtl(s: Setup, ...args: string[]): Promise<string> {
  const { stdout } = await run(OVN_CTL, args, { env: s.env, timeout: 60_000, cwd: s.dir });
  return stdout;
}

async function ctl(s: Setup, program: string, db: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(program, [`--db=${db}`, '--timeout=20', ...args], {
    env: s.env,
    timeout: 30_000,
  });
  return stdout;
}

const nbSock = (s: Setup) => `unix:${join(s.run, 'ovnnb_db.sock')}`;
const sbSock = (s: Setup) => `unix:${join(s.run, 'ovnsb_db.sock')}`;

function pidOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number | undefined): boolean {
  return pid !== undefined && existsSync(`/proc/${pid}`);
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Kill what is left of an installation: daemons by their pidfiles, and their monitors. */
function killAll(s: Setup): void {
  for (const name of ['ovn-northd', 'ovnnb_db', 'ovnsb_db']) {
    const pid = pidOf(join(s.run, `${name}.pid`));
    if (pid === undefined || !alive(pid)) continue;
    const parent = parentOf(pid);
    const monitor =
      parent !== undefined &&
      parent > 1 &&
      readFileSync(`/proc/${parent}/cmdline`, 'utf8').includes('monitoring');
    for (const p of monitor ? [parent, pid] : [pid]) {
      try {
        process.kill(p as number, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}

/** What the steps saw, to compare the two servers. */
const seen = new Map<Kind, Record<string, unknown>>();

describe.each(['ovsdb-server', 'ovnkit-server'] as const)('ovn-ctl with %s', (kind) => {
  let s: Setup;
  let pki: Pki;
  const record: Record<string, unknown> = {};
  seen.set(kind, record);

  beforeAll(async () => {
    s = setup(kind);
    pki = await createPki(join(s.dir, 'pki'), { unrelatedCa: false });
  }, 60_000);

  afterAll(() => {
    if (s === undefined) return;
    killAll(s);
    rmSync(s.dir, { recursive: true, force: true });
  });

  it('run_nb_ovsdb runs NB in the foreground until ovs-appctl exit', async () => {
    const child = spawn(OVN_CTL, ['run_nb_ovsdb'], { env: s.env, cwd: s.dir, stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      expect(
        await holds(() => existsSync(join(s.run, 'ovnnb_db.ctl')) && unixAccepts(nbSock(s))),
      ).toBe(true);
      expect(await ovnCtl(s, 'status_ovnnb')).toBe('running/active\n');
      await run('ovs-appctl', ['-t', join(s.run, 'ovnnb_db.ctl'), 'exit'], { timeout: 10_000 });
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('start_nb_ovsdb and start_sb_ovsdb start NB and SB; status_ovnnb/status_ovnsb report running/active', async () => {
    expect(await ovnCtl(s, 'status_ovnnb')).toBe('not-running\n');
    await ovnCtl(s, 'start_nb_ovsdb');
    await ovnCtl(s, 'start_sb_ovsdb');
    expect(await ovnCtl(s, 'status_ovnnb')).toBe('running/active\n');
    expect(await ovnCtl(s, 'status_ovnsb')).toBe('running/active\n');
    // ovn-ctl's init: NB_Global and SB_Global exist.
    expect(
      (
        await ctl(s, 'ovn-nbctl', nbSock(s), '--bare', '--columns=_uuid', 'list', 'NB_Global')
      ).trim(),
    ).not.toBe('');
    // Started as ovn-ctl starts it: found under the name it looks for.
    const pid = pidOf(join(s.run, 'ovnnb_db.pid'));
    expect(readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('ovsdb-server');
    // --detach --monitor: the server's parent is its monitor, not init.
    expect(parentOf(pid as number)).not.toBe(1);
  }, 90_000);

  it('ovn-northd started by ovn-ctl builds SB from an ovn-nbctl --wait=sb transaction', async () => {
    await ovnCtl(s, '--ovn-manage-ovsdb=no', 'start_northd');
    await ctl(
      s,
      'ovn-nbctl',
      nbSock(s),
      '--wait=sb',
      ...[
        'ls-add',
        'sw0',
        '--',
        'lsp-add',
        'sw0',
        'p1',
        '--',
        'lsp-set-addresses',
        'p1',
        '0a:00:00:00:00:01 10.0.0.2',
      ],
      ...[
        '--',
        'lr-add',
        'lr0',
        '--',
        'lrp-add',
        'lr0',
        'lr0-sw0',
        '00:00:00:00:00:fe',
        '10.0.0.1/24',
      ],
    );
    const bindings = (
      await ctl(
        s,
        'ovn-sbctl',
        sbSock(s),
        '--bare',
        '--columns=logical_port',
        'list',
        'Port_Binding',
      )
    )
      .split('\n')
      .filter((l) => l !== '')
      .sort();
    expect(bindings).toEqual(['lr0-sw0', 'p1']);
    const flows = (
      await ctl(s, 'ovn-sbctl', sbSock(s), '--bare', '--columns=_uuid', 'list', 'Logical_Flow')
    )
      .split('\n')
      .filter((l) => l !== '').length;
    expect(flows).toBeGreaterThan(50);
    record.flows = flows;
  }, 60_000);

  it('a remote from ovn-nbctl set-connection listens, its status is written back, and del-connection closes it', async () => {
    const port = await freePort();
    await ctl(s, 'ovn-nbctl', nbSock(s), 'set-connection', `ptcp:${port}:127.0.0.1`);
    const tcp = `tcp:127.0.0.1:${port}`;
    expect(await holds(() => tcpAccepts(port))).toBe(true);
    expect(await ctl(s, 'ovn-nbctl', tcp, 'ls-list')).toMatch(/sw0/);
    // Status is written every 2.5 s: bound_port and the zero times of a passive remote.
    const status = async () =>
      (
        await ctl(s, 'ovn-nbctl', nbSock(s), '--bare', '--columns=status', 'list', 'Connection')
      ).trim();
    expect(await holds(async () => (await status()).includes('bound_port'), 8000)).toBe(true);
    record.status = (await status()).replace(String(port), 'PORT');
    await ctl(s, 'ovn-nbctl', nbSock(s), 'del-connection');
    expect(await holds(async () => !(await tcpAccepts(port)))).toBe(true);
  }, 60_000);

  it('TLS from ovn-nbctl set-ssl serves a pssl remote from set-connection', async () => {
    const port = await freePort();
    await ctl(
      s,
      'ovn-nbctl',
      nbSock(s),
      'set-ssl',
      pki.server.privateKey,
      pki.server.certificate,
      pki.caCert,
    );
    await ctl(s, 'ovn-nbctl', nbSock(s), 'set-connection', `pssl:${port}:127.0.0.1`);
    expect(await holds(() => tcpAccepts(port))).toBe(true);
    const tls = ['-p', pki.client.privateKey, '-c', pki.client.certificate, '-C', pki.caCert];
    expect(await ctl(s, 'ovn-nbctl', `ssl:127.0.0.1:${port}`, ...tls, 'ls-list')).toMatch(/sw0/);
    await ctl(s, 'ovn-nbctl', nbSock(s), 'del-connection');
  }, 60_000);

  it('stop_northd, stop_nb_ovsdb and stop_sb_ovsdb stop them', async () => {
    const pids = ['ovnnb_db', 'ovnsb_db'].map((n) => pidOf(join(s.run, `${n}.pid`)) as number);
    const monitors = pids.map((p) => parentOf(p));
    await ovnCtl(s, 'stop_northd');
    await ovnCtl(s, 'stop_nb_ovsdb');
    await ovnCtl(s, 'stop_sb_ovsdb');
    expect(
      await holds(() =>
        [...pids, ...monitors].every((p) => p === undefined || p <= 1 || !alive(p)),
      ),
    ).toBe(true);
    expect(await ovnCtl(s, 'status_ovnnb')).toBe('not-running\n');
    expect(await ovnCtl(s, 'status_ovnsb')).toBe('not-running\n');
  }, 60_000);
});

describe('ovn-ctl: ovnkit-server as ovsdb-server', () => {
  it('gives what ovsdb-server gives: the flows northd wrote and the Connection row status', () => {
    const real = seen.get('ovsdb-server');
    const ours = seen.get('ovnkit-server');
    expect(ours?.flows).toBe(real?.flows);
    expect(ours?.status).toBe(real?.status);
    expect(real?.status).toMatch(/bound_port=PORT/);
  });
});
