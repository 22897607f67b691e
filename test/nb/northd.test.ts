/**
 * The DSL against a real ovn-northd (OVN 23.03): NB (schema 7.0.0) and SB
 * ovsdb-servers, ovn-northd between them. A router, two switches, ports,
 * NAT and a policy built through the DSL; `wait: 'sb'` resolves; the SB
 * holds a Port_Binding for every switch port and Logical_Flows for the
 * policy; and with northd stopped, `waitFor` times out cleanly.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import {
  aclAdd,
  connectSwitchToRouter,
  createNb,
  lrAdd,
  lrNatAdd,
  lrPolicyAdd,
  lrpAdd,
  lsAdd,
  lspAdd,
  match,
  NB,
  type NBTables,
  type Nb,
  NbWaitTimeoutError,
} from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../src/testing/index.js';
import { NB_SCHEMA_7_0 } from './helpers/differential.js';

const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';
const POLICY_MATCH = 'ip4.src == 10.0.1.0/24 && ip4.dst == 8.8.8.8';

describe('the DSL with ovn-northd', () => {
  let nbServer: OvsdbServerHandle;
  let sbServer: OvsdbServerHandle;
  let dir: string;
  let northd: ChildProcess | undefined;
  let client: DatabaseClient<NBTables>;
  let nb: Nb;
  let sb: OvsdbConnection;

  const startNorthd = async () => {
    northd = spawn(
      'ovn-northd',
      [
        `--ovnnb-db=${nbServer.unixRemote}`,
        `--ovnsb-db=${sbServer.unixRemote}`,
        `--unixctl=${join(dir, 'northd.ctl')}`,
        `--pidfile=${join(dir, 'northd.pid')}`,
        `--log-file=${join(dir, 'northd.log')}`,
        '-vconsole:off',
      ],
      { stdio: 'ignore' },
    );
  };
  const stopNorthd = async () => {
    const child = northd;
    northd = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ovnkit-northd-'));
    [nbServer, sbServer] = await Promise.all([
      startOvsdbServer({ schemaPath: NB_SCHEMA_7_0 }),
      startOvsdbServer({ schemaPath: SB_SCHEMA }),
    ]);
    await startNorthd();
    client = connectDatabase({ remotes: [nbServer.unixRemote], model: NB });
    await client.ready;
    nb = createNb(client);
    sb = await connect(sbServer.unixRemote);
  });

  afterAll(async () => {
    await stopNorthd();
    sb?.close();
    await client?.close();
    await Promise.all([nbServer?.stop(), sbServer?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('builds a topology, waits for sb, and finds port bindings and policy flows in the SB', async () => {
    const result = await nb.transact(
      (t) => {
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lr0-public', '00:00:00:00:ff:ff', ['172.16.0.1/24'], {
          gatewayChassis: { 'gw-1': 10 },
        });
        for (const [i, sw] of ['sw0', 'sw1'].entries()) {
          lsAdd(t, sw);
          connectSwitchToRouter(t, {
            switch: sw,
            router: 'lr0',
            mac: `00:00:00:00:ff:0${i}`,
            networks: [`10.0.${i}.1/24`],
          });
          for (const n of [1, 2]) {
            lspAdd(t, sw, `${sw}-vm${n}`, {
              addresses: [`00:00:00:00:0${i}:0${n} 10.0.${i}.${10 + n}`],
            });
          }
        }
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/16' });
        lrNatAdd(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: '172.16.0.11',
          logicalIp: '10.0.0.11',
        });
        lrPolicyAdd(t, 'lr0', {
          priority: 1234,
          match: POLICY_MATCH,
          action: 'reroute',
          nexthops: ['10.0.0.12'],
        });
        aclAdd(
          t,
          { switch: 'sw0' },
          {
            direction: 'to-lport',
            priority: 1000,
            action: 'drop',
            match: match.outport('sw0-vm2'),
          },
        );
      },
      { wait: 'sb', waitTimeoutMs: 20_000 },
    );
    expect(result.nbCfg).toBeGreaterThan(0);
    const global = [...client.rows('NB_Global')][0]!;
    expect(global.sb_cfg).toBeGreaterThanOrEqual(result.nbCfg!);

    const [bindings, flows] = await sb.transact('OVN_Southbound', [
      { op: 'select', table: 'Port_Binding', where: [], columns: ['logical_port'] },
      {
        op: 'select',
        table: 'Logical_Flow',
        where: [],
        columns: ['match', 'priority', 'actions', 'external_ids'],
      },
    ]);
    const bound = new Set(
      (bindings as { rows: { logical_port: string }[] }).rows.map((r) => r.logical_port),
    );
    const lsps = [...client.rows('Logical_Switch_Port')].map((p) => p.name);
    expect(lsps).toHaveLength(6);
    for (const name of lsps) expect(bound, name).toContain(name);

    const policyFlows = (
      flows as {
        rows: { match: string; priority: number; actions: string; external_ids: unknown }[];
      }
    ).rows.filter((f) => f.match.includes(POLICY_MATCH));
    expect(policyFlows.length).toBeGreaterThan(0);
    expect(
      policyFlows.some(
        (f) => f.priority === 1234 && JSON.stringify(f.external_ids).includes('lr_in_policy'),
      ),
    ).toBe(true);
  });

  it('waitFor("sb") after a later change resolves with a larger nb_cfg', async () => {
    const before = [...client.rows('NB_Global')][0]!.nb_cfg;
    const reached = await nb.waitFor('sb', { timeoutMs: 20_000 });
    expect(reached).toBe(Number(before) + 1);
  });

  it('without ovn-northd, waitFor times out cleanly and the client keeps working', async () => {
    await stopNorthd();
    const started = Date.now();
    const err = await nb.waitFor('sb', { timeoutMs: 400 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NbWaitTimeoutError);
    const e = err as NbWaitTimeoutError;
    expect(e.target).toBe('sb');
    expect(e.timeoutMs).toBe(400);
    expect(e.current).toBe(Number(e.expected) - 1);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The transaction committed (nb_cfg moved on); only sb_cfg stayed behind.
    const global = [...client.rows('NB_Global')][0]!;
    expect(global.nb_cfg).toBe(e.expected);
    expect(global.sb_cfg).toBe(Number(e.expected) - 1);
    // The client is still usable.
    const r = await nb.transact((t) => lsAdd(t, 'after-timeout'));
    expect(client.get('Logical_Switch', r.value)?.name).toBe('after-timeout');
    expect(await readFile(join(dir, 'northd.log'), 'utf8')).toContain('ovn-northd');
  });
});
