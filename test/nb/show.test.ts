/**
 * `show()` and `ovnkit show` against `ovn-nbctl show` on the same database:
 * equal modulo ordering (ovn-nbctl follows the database's internal order;
 * the DSL sorts).
 */

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { CliIo } from '../../src/cli/io.js';
import {
  connectSwitchToRouter,
  lrAdd,
  lrNatAdd,
  lrpAdd,
  lrpSetGatewayChassis,
  lsAdd,
  lspAdd,
  lsSetExternalIds,
  showNb,
} from '../../src/nb/index.js';
import {
  NB_SCHEMA_7_0,
  NB_SCHEMA_7_18,
  type NbServer,
  nbctl,
  startNb,
} from './helpers/differential.js';

const run = promisify(execFile);

/**
 * Split `show` output into blocks (switch/router), each with sorted
 * sub-blocks (port/nat); sort the blocks. The chassis of a `gateway chassis`
 * line are sorted too: ovn-nbctl means to order them by priority but does
 * not fetch the priorities for `show`, so its order is the database's.
 */
function canonical(text: string): string[][] {
  const blocks: string[][][] = [];
  for (const raw of text.split('\n')) {
    const gc = /^( {8}gateway chassis: \[)(.*)\]$/.exec(raw);
    const line = gc ? `${gc[1]}${gc[2]!.split(' ').sort().join(' ')}]` : raw;
    if (line === '') continue;
    if (!line.startsWith(' ')) blocks.push([[line]]);
    else if (!line.startsWith('        ')) blocks.at(-1)!.push([line]);
    else blocks.at(-1)!.at(-1)!.push(line);
  }
  return blocks
    .map(([head, ...subs]) => [head!.join('\n'), ...subs.map((s) => s.join('\n')).sort()])
    .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
}

function capture(
  env: Record<string, string | undefined> = {},
): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
    out: () => out,
    err: () => err,
  };
}

describe.each([
  ['7.18.0', NB_SCHEMA_7_18],
  ['7.0.0', NB_SCHEMA_7_0],
])('show on NB %s', (_v, schema) => {
  let s: NbServer;
  beforeAll(async () => {
    s = await startNb(schema);
    await s.nb.transact((t) => {
      lsAdd(t, 'sw0');
      lsSetExternalIds(t, 'sw0', { 'neutron:network_name': 'net0' });
      lsAdd(t, 'sw1');
      lsAdd(t);
      lrAdd(t, 'lr0', { externalIds: { 'neutron:router_name': 'router0' } });
      lrAdd(t, 'lr1');
      connectSwitchToRouter(t, {
        switch: 'sw0',
        router: 'lr0',
        mac: '00:00:00:00:ff:01',
        networks: ['10.0.0.1/24', 'fd00::1/64'],
      });
      connectSwitchToRouter(t, {
        switch: 'sw1',
        router: 'lr0',
        mac: '00:00:00:00:ff:02',
        networks: ['10.0.1.1/24'],
      });
      lspAdd(t, 'sw0', 'vm1', {
        addresses: ['00:00:00:00:00:01 10.0.0.11', 'unknown'],
        externalIds: { 'neutron:port_name': 'port-one' },
      });
      lspAdd(t, 'sw0', 'vm2', { addresses: ['dynamic'] });
      lspAdd(t, 'sw0', 'c1', { parentName: 'vm1', tagRequest: 7, tag: 7 });
      lspAdd(t, 'sw1', 'ln', {
        type: 'localnet',
        addresses: ['unknown'],
        options: { network_name: 'phys' },
      });
      lrpAdd(t, 'lr0', 'lr0-public', '00:00:00:00:ff:ff', ['172.16.0.1/24'], {
        options: { route_table: 'rtb1' },
      });
      lrpSetGatewayChassis(t, 'lr0-public', 'gw-a', 10);
      lrpSetGatewayChassis(t, 'lr0-public', 'gw-b', 20);
      lrpSetGatewayChassis(t, 'lr0-public', 'gw-c', 20);
      lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/16' });
      lrNatAdd(t, 'lr0', {
        type: 'dnat_and_snat',
        externalIp: '172.16.0.11',
        logicalIp: '10.0.0.11',
      });
      lrNatAdd(t, 'lr0', {
        type: 'dnat',
        externalIp: '172.16.0.12',
        logicalIp: '10.0.0.12',
        externalPortRange: '80-90',
      });
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('equals ovn-nbctl show modulo ordering', async () => {
    const ours = s.nb.show();
    const theirs = await nbctl(s.server, 'show');
    expect(ours.split('\n').length).toBeGreaterThan(30);
    expect(canonical(ours)).toEqual(canonical(theirs));
  });

  it('equals ovn-nbctl show NAME for a switch and a router', async () => {
    for (const name of ['sw0', 'lr0', 'nope']) {
      expect(canonical(showNb(s.client, { only: name })), name).toEqual(
        canonical(await nbctl(s.server, 'show', name)),
      );
    }
  });

  it('ovnkit show --db REMOTE prints the same', async () => {
    const io = capture();
    expect(await runCli(['show', '--db', s.server.unixRemote], io)).toBe(0);
    expect(io.err()).toBe('');
    expect(canonical(io.out())).toEqual(canonical(await nbctl(s.server, 'show')));
  });
});

describe('ovnkit command line', () => {
  let s: NbServer;
  beforeAll(async () => {
    s = await startNb(NB_SCHEMA_7_18);
    await s.nb.transact((t) => {
      lsAdd(t, 'sw0');
      lspAdd(t, 'sw0', 'p1', { addresses: ['00:00:00:00:00:01 10.0.0.5'] });
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the bin runs `show` as a process', async () => {
    const { stdout } = await run(
      'node',
      ['--import', 'tsx', 'src/cli/main.ts', 'show', `--db=${s.server.unixRemote}`],
      {
        timeout: 60_000,
      },
    );
    expect(canonical(stdout)).toEqual(canonical(await nbctl(s.server, 'show')));
  });

  it('takes the remote from OVN_NB_DB, and shows one switch', async () => {
    const io = capture({ OVN_NB_DB: s.server.unixRemote });
    expect(await runCli(['show', 'sw0'], io)).toBe(0);
    expect(io.out()).toContain('port p1');
    expect(io.out()).toMatch(/^switch [0-9a-f-]{36} \(sw0\)\n/);
  });

  it('fails cleanly when the database is unreachable', async () => {
    const io = capture();
    const started = Date.now();
    expect(
      await runCli(['show', '--db', 'unix:/nonexistent/nb.sock', '--timeout', '0.5'], io),
    ).toBe(1);
    expect(io.err()).toContain('could not connect to unix:/nonexistent/nb.sock');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('reports usage errors with status 2', async () => {
    for (const argv of [
      [],
      ['nope'],
      ['show', '--bogus'],
      ['show', '--db'],
      ['show', 'a', 'b'],
      ['show', '--timeout', 'x'],
    ]) {
      const io = capture();
      expect(await runCli(argv, io), argv.join(' ')).toBe(2);
      expect(io.err(), argv.join(' ')).not.toBe('');
    }
  });

  it('prints help with status 0', async () => {
    const top = capture();
    expect(await runCli(['--help'], top)).toBe(0);
    expect(top.out()).toContain('show');
    expect(top.out()).toContain('bridge');
    const show = capture();
    expect(await runCli(['show', '--help'], show)).toBe(0);
    expect(show.out()).toContain('Usage: ovnkit show');
  });
});
