/**
 * `examples/port-group-watcher`: its `main.ts` runs as a child process,
 * watching NB on a real ovsdb-server and on the in-memory server, while
 * `ovn-nbctl` (another process) adds, re-labels and deletes ports and edits
 * the port group by hand: after each change the group holds exactly the
 * ports labelled for the tenant, as ovn-nbctl reads it. The model it is
 * written against is the one `ovnkit-codegen` generates from the server's
 * own schema.
 */

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import {
  checkExampleModel,
  NB_SCHEMA,
  type OvnRig,
  runExample,
  SERVER_KINDS,
  spawnExample,
  startOvnRig,
} from './ovn-rig.js';

describe('examples/port-group-watcher: the model', () => {
  it('is generated from the server schema 7.0.0 and up to date', async () => {
    requireOvsdbServer();
    expect(JSON.parse(readFileSync(NB_SCHEMA, 'utf8')).version).toBe('7.0.0');
    const r = await checkExampleModel('port-group-watcher', NB_SCHEMA);
    expect(r.stderr).toContain('is up to date with /usr/share/ovn/ovn-nb.ovsschema');
    expect(r.code).toBe(0);
  });
});

for (const kind of SERVER_KINDS) {
  describe(`examples/port-group-watcher on ${kind}`, () => {
    let rig: OvnRig;
    let child: ChildProcess | undefined;
    let out = '';

    beforeAll(async () => {
      requireOvsdbServer();
      rig = await startOvnRig(kind, { northd: false });
    });
    afterAll(async () => {
      if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
      await rig?.stop();
    });

    /** The ports of pg_blue by name, as ovn-nbctl reads them (empty when there is no group). */
    async function groupPorts(): Promise<string[]> {
      const uuids = (
        await rig.nbctl('--bare', '--columns=ports', 'find', 'Port_Group', 'name=pg_blue')
      )
        .split(/\s+/)
        .filter((w) => w !== '');
      const names: string[] = [];
      for (const u of uuids)
        names.push((await rig.nbctl('get', 'Logical_Switch_Port', u, 'name')).trim());
      return names.sort();
    }

    /** Wait until the group holds exactly `want` (the watcher works asynchronously). */
    async function expectGroup(want: string[], what: string): Promise<void> {
      const deadline = Date.now() + 10_000;
      let got = await groupPorts();
      while (JSON.stringify(got) !== JSON.stringify([...want].sort()) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        got = await groupPorts();
      }
      expect(got, `${what}\nwatcher output:\n${out}`).toEqual([...want].sort());
    }

    const label = (port: string, tenant: string) => [
      '--',
      'set',
      'Logical_Switch_Port',
      port,
      `external_ids:tenant=${tenant}`,
    ];

    it('keeps pg_blue equal to the ports labelled tenant=blue while ovn-nbctl changes them', async () => {
      await rig.nbctl(
        'ls-add',
        'sw1',
        '--',
        'lsp-add',
        'sw1',
        'a1',
        ...label('a1', 'blue'),
        '--',
        'lsp-add',
        'sw1',
        'a2',
        ...label('a2', 'red'),
        '--',
        'lsp-add',
        'sw1',
        'a3',
      );

      // --once: one reconciliation creates the group, and exits.
      const once1 = await runExample('port-group-watcher', [
        '--nb',
        rig.nb.unixRemote,
        '--tenant',
        'blue',
        '--once',
      ]);
      expect(once1.stderr).toBe('');
      // (The group's own insert comes back as an event: a second check, which sends nothing.)
      expect(once1.stdout).toMatch(
        /^pg_blue: created \+a1 \(ports: a1\)\nstopped: \d+ reconciliations, 1 transactions\n$/,
      );
      expect(await groupPorts()).toEqual(['a1']);
      expect((await rig.nbctl('get', 'Port_Group', 'pg_blue', 'external_ids:tenant')).trim()).toBe(
        'blue',
      );

      // Watching from now on.
      child = spawnExample('port-group-watcher', ['--nb', rig.nb.unixRemote, '--tenant', 'blue']);
      child.stdout!.setEncoding('utf8').on('data', (s: string) => {
        out += s;
      });
      child.stderr!.setEncoding('utf8').on('data', (s: string) => {
        out += s;
      });
      const deadline = Date.now() + 15_000;
      while (!out.includes('watching tenant=blue for pg_blue') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(out).toContain(`watching tenant=blue for pg_blue on ${rig.nb.unixRemote}\n`);
      // Already in sync: the start sent nothing.
      expect(out).not.toContain('pg_blue: ');

      await rig.nbctl('lsp-add', 'sw1', 'a4', ...label('a4', 'blue'));
      await expectGroup(['a1', 'a4'], 'a new port labelled blue joins');

      await rig.nbctl(...label('a2', 'blue').slice(1));
      await expectGroup(['a1', 'a2', 'a4'], 'a port re-labelled red → blue joins');

      await rig.nbctl(...label('a1', 'red').slice(1));
      await expectGroup(['a2', 'a4'], 'a port re-labelled blue → red leaves');

      await rig.nbctl('remove', 'Logical_Switch_Port', 'a4', 'external_ids', 'tenant');
      await expectGroup(['a2'], 'a port whose label is removed leaves');

      // Someone edits the group by hand: it is put back.
      await rig.nbctl('pg-set-ports', 'pg_blue', 'a3', 'a1');
      await expectGroup(['a2'], 'a hand edit of the group is undone');

      // Several ports in one transaction, across switches.
      await rig.nbctl(
        'ls-add',
        'sw2',
        '--',
        'lsp-add',
        'sw2',
        'b1',
        ...label('b1', 'blue'),
        '--',
        'lsp-add',
        'sw2',
        'b2',
        ...label('b2', 'blue'),
        '--',
        'lsp-add',
        'sw2',
        'b3',
        ...label('b3', 'green'),
      );
      await expectGroup(['a2', 'b1', 'b2'], 'ports added together join together');

      // A deleted port leaves by itself (Port_Group.ports is a weak reference):
      // the watcher sees the group right and sends nothing.
      await rig.nbctl('lsp-del', 'a2');
      await expectGroup(['b1', 'b2'], 'a deleted port is gone');

      // The group deleted by hand is created again.
      await rig.nbctl('pg-del', 'pg_blue');
      await expectGroup(['b1', 'b2'], 'a deleted group is created again');
      // The watcher logs after its transaction commits: wait for that line too, so
      // that it does not arrive during the quiet check below.
      const logged = Date.now() + 15_000;
      while (!out.includes('pg_blue: created') && Date.now() < logged) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(out).toContain('pg_blue: created +b1 +b2 (ports: b1 b2)\n');

      // A port of another tenant changing does not wake the watcher.
      const before = out;
      await rig.nbctl(...label('b3', 'purple').slice(1));
      await rig.nbctl('lsp-add', 'sw2', 'c1', ...label('c1', 'green'));
      await new Promise((r) => setTimeout(r, 300));
      expect(out).toBe(before);

      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      const lines = out.trim().split('\n');
      expect(lines).toEqual([
        `watching tenant=blue for pg_blue on ${rig.nb.unixRemote}`,
        'pg_blue: updated +a4 (ports: a1 a4)',
        'pg_blue: updated +a2 (ports: a1 a2 a4)',
        'pg_blue: updated -a1 (ports: a2 a4)',
        'pg_blue: updated -a4 (ports: a2)',
        'pg_blue: updated +a2 -a1 -a3 (ports: a2)',
        'pg_blue: updated +b1 +b2 (ports: a2 b1 b2)',
        'pg_blue: created +b1 +b2 (ports: b1 b2)',
        expect.stringMatching(/^stopped: \d+ reconciliations, 7 transactions$/),
      ]);
    }, 60_000);
  });
}
