/**
 * `applyDesired` racing, on the real ovsdb-server and on the ovnkit-server
 * program, each client on its own connection:
 * - two owners contributing ports to one shared port group at once, at
 *   several sizes: both contributions survive, and each owner's shrink
 *   takes out only its own ports;
 * - two appliers of the same owner with different desired sets at once:
 *   the database ends as the desired set of the apply that finished last,
 *   with no element lost and no row twice;
 * - a writer outside the reconciler changing a row between plan and
 *   apply: the guard trips, the re-plan wins, and the writer's change to
 *   columns the desired state leaves out survives.
 */

import { describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/client/index.js';
import { NB, type NBTables } from '../../../src/nb/generated/index.js';
import { nbDesiredState } from '../../../src/nb/index.js';
import {
  type ApplyResult,
  applyDesired,
  type DesiredState,
  keyOf,
} from '../../../src/transactions/index.js';
import {
  countingClient,
  dump,
  KINDS,
  keysOfDump,
  ownerOfWire,
  settle,
  groupPorts as sharedPorts,
  useNbServer,
  wireMap,
  wireSet,
} from './helpers.js';

const range = (prefix: string, from: number, to: number): string[] =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) => `${prefix}${from + i}`);

/** Each result: applied, with one plan per conflict plus the last. */
function checkResult(r: ApplyResult): void {
  expect(r.attempts).toBe(r.conflicts + 1);
  expect(r.transactions).toBeGreaterThanOrEqual(r.outcome === 'applied' ? 1 : 0);
}

describe.each(KINDS)('desired state under concurrency on %s', (kind) => {
  const fx = useNbServer(kind);

  const groupPorts = (name: string): Promise<string[]> => sharedPorts(fx.server.remote, name);

  it('two owners contribute to one shared port group at once; each shrink takes only its own', async () => {
    for (const n of [1, 3, 8, 20]) {
      const pg = `shared_${n}`;
      const mk = (owner: string, ports: readonly string[]): DesiredState<NBTables> => {
        const d = nbDesiredState(NB, { owner });
        const sw = d.add('Logical_Switch', { name: `${owner}-sw` });
        for (const p of ports) d.add('Logical_Switch_Port', { name: p }, { in: sw });
        d.add(
          'Port_Group',
          { name: pg, ports: ports.map((p) => keyOf('Logical_Switch_Port', { name: p })) },
          { shared: true },
        );
        return d;
      };
      const A = `sa${n}`;
      const B = `sb${n}`;
      const pa = range(`${A}-p`, 0, n);
      const pb = range(`${B}-p`, 0, n);
      const first = await Promise.all([
        applyDesired(fx.c1, mk(A, pa)),
        applyDesired(fx.c2, mk(B, pb)),
      ]);
      for (const r of first) {
        expect(r.outcome).toBe('applied');
        checkResult(r);
      }
      expect(await groupPorts(pg)).toEqual([...pa, ...pb].sort());

      // A shrinks alone: B's ports stay.
      await settle(fx.c1);
      const half = pa.slice(0, Math.ceil(n / 2));
      checkResult(await applyDesired(fx.c1, mk(A, half)));
      expect(await groupPorts(pg)).toEqual([...half, ...pb].sort());

      // Both shrink at once, to different sizes, each from its own client.
      await settle(fx.c2);
      const bKeep = pb.slice(0, Math.floor(n / 2));
      const second = await Promise.all([
        applyDesired(fx.c1, mk(A, [])),
        applyDesired(fx.c2, mk(B, bKeep)),
      ]);
      for (const r of second) checkResult(r);
      expect(await groupPorts(pg)).toEqual(bKeep);
      // A's ports are gone with its desired set; B's left ones are B's.
      const lsp = (await dump(fx.server.remote, ['Logical_Switch_Port'])).get(
        'Logical_Switch_Port',
      )!;
      const byOwner = (o: string): string[] =>
        lsp.rows
          .filter((r) => ownerOfWire(r) === o)
          .map((r) => String(r['name']))
          .sort();
      expect(byOwner(A)).toEqual([]);
      expect(byOwner(B)).toEqual(bKeep);
    }
  }, 120_000);

  it('two appliers of one owner race with different sets: the last to finish wins, nothing lost or doubled', async () => {
    const owner = 'race';
    interface Want {
      readonly ports: readonly string[];
      readonly group: readonly string[];
      readonly acls: readonly number[];
      readonly config: string;
      readonly sets: readonly string[];
    }
    const mk = (w: Want): DesiredState<NBTables> => {
      const d = nbDesiredState(NB, { owner });
      const sw = d.add('Logical_Switch', { name: 'race-sw', other_config: { round: w.config } });
      for (const p of w.ports) {
        d.add('Logical_Switch_Port', { name: p, addresses: ['unknown'] }, { in: sw });
      }
      const pg = d.add('Port_Group', {
        name: 'race_pg',
        ports: w.group.map((p) => keyOf('Logical_Switch_Port', { name: p })),
      });
      for (const prio of w.acls) {
        d.add(
          'ACL',
          { direction: 'to-lport', priority: prio, match: 'ip4', action: 'allow' },
          { in: pg },
        );
      }
      for (const name of w.sets) d.add('Address_Set', { name, addresses: [] });
      return d;
    };
    /** The state, from `ovsdb-client dump`, in the form of a Want. */
    const read = async (): Promise<Want> => {
      const t = await dump(fx.server.remote);
      const { byUuid } = keysOfDump(t);
      const mine = (table: string) => t.get(table)!.rows.filter((r) => ownerOfWire(r) === owner);
      const sws = mine('Logical_Switch');
      const pgs = mine('Port_Group');
      expect(sws.length).toBe(1);
      expect(pgs.length).toBe(1);
      const acls = mine('ACL');
      // Every ACL of the owner is in its group, once; no two have the same key.
      const held = (wireSet(pgs[0]!['acls']) as string[]).map((u) => byUuid.get(u));
      expect(new Set(held).size).toBe(held.length);
      expect(held.length).toBe(acls.length);
      const ports = mine('Logical_Switch_Port').map((r) => String(r['name']));
      const swPorts = (wireSet(sws[0]!['ports']) as string[]).map((u) => byUuid.get(u)!.slice(4));
      expect(swPorts.sort()).toEqual([...ports].sort());
      return {
        ports: ports.sort(),
        group: (wireSet(pgs[0]!['ports']) as string[]).map((u) => byUuid.get(u)!.slice(4)).sort(),
        acls: acls.map((r) => Number(r['priority'])).sort((a, b) => a - b),
        config: String(wireMap(sws[0]!['other_config'])['round']),
        sets: mine('Address_Set')
          .map((r) => String(r['name']))
          .sort(),
      };
    };
    const norm = (w: Want): Want => ({
      ports: [...w.ports].sort(),
      group: [...w.group].sort(),
      acls: [...w.acls].sort((a, b) => a - b),
      config: w.config,
      sets: [...w.sets].sort(),
    });
    const base: Want = {
      ports: range('r-p', 0, 4),
      group: ['r-p0', 'r-p1'],
      acls: [1, 2],
      config: 'base',
      sets: ['race_base'],
    };
    await applyDesired(fx.c1, mk(base));
    expect(await read()).toEqual(norm(base));

    // Rounds: both appliers change the switch's ports and config and the group's ports;
    // in even rounds both also create ACLs in the group, in odd ones the ACLs stay; each
    // creates an address set of its own (a root row the other one never read: the guard on
    // the owner's set of address sets covers it) and in even rounds x keeps the first one.
    for (let i = 0; i < 10; i++) {
      const now = await read();
      const xs = range(`r${i}x-p`, 0, 2 + (i % 3));
      const ys = range(`r${i}y-p`, 0, 3);
      const x: Want = {
        ports: ['r-p0', ...xs],
        group: ['r-p0', xs[0]!],
        acls: i % 2 === 0 ? [10 + i, 2] : now.acls,
        config: `x${i}`,
        sets: i % 2 === 0 ? ['race_base', `race_${i}_x`] : [`race_${i}_x`],
      };
      const y: Want = {
        ports: ['r-p1', ...ys],
        group: [ys[0]!, ys[1]!],
        acls: i % 2 === 0 ? [30 + i] : now.acls,
        config: `y${i}`,
        sets: [`race_${i}_y`],
      };
      await settle(fx.c1);
      await settle(fx.c2);
      const finished: string[] = [];
      const run = async (
        name: string,
        c: DatabaseClient<NBTables>,
        w: Want,
      ): Promise<ApplyResult> => {
        const r = await applyDesired(c, mk(w));
        finished.push(name);
        return r;
      };
      const runX = (): Promise<ApplyResult> => run('x', fx.c1, x);
      const runY = (): Promise<ApplyResult> => run('y', fx.c2, y);
      // Which applier starts first alternates.
      const [rx, ry] =
        i % 4 < 2
          ? await Promise.all([runX(), runY()])
          : await Promise.all([runY(), runX()]).then(([b, a]) => [a, b] as const);
      checkResult(rx);
      checkResult(ry);
      const last = finished[1] === 'x' ? x : y;
      expect(await read()).toEqual(norm(last));
      // The winner's replica agrees: nothing left to do.
      const winner = finished[1] === 'x' ? fx.c1 : fx.c2;
      await settle(winner);
      const counted = countingClient(winner);
      expect((await applyDesired(counted.client, mk(last))).outcome).toBe('unchanged');
      expect(counted.count()).toBe(0);
    }
  }, 120_000);

  it('with guardReads, two appliers of one owner writing disjoint rows end at the desired set of the last to commit', async () => {
    const owner = 'disjoint';
    const mk = (config: string, sets: readonly string[]): DesiredState<NBTables> => {
      const d = nbDesiredState(NB, { owner });
      d.add('Logical_Switch', { name: 'dj-sw', other_config: { round: config } });
      for (const name of sets) d.add('Address_Set', { name, addresses: [] });
      return d;
    };
    const read = async (): Promise<{ config: string; sets: string[] }> => {
      const t = await dump(fx.server.remote, ['Logical_Switch', 'Address_Set']);
      const sws = t.get('Logical_Switch')!.rows.filter((r) => ownerOfWire(r) === owner);
      expect(sws.length).toBe(1);
      return {
        config: String(wireMap(sws[0]!['other_config'])['round']),
        sets: t
          .get('Address_Set')!
          .rows.filter((r) => ownerOfWire(r) === owner)
          .map((r) => String(r['name']))
          .sort(),
      };
    };
    await applyDesired(fx.c1, mk('base', ['dj_base']));
    let conflicts = 0;
    for (let i = 0; i < 8; i++) {
      const now = await read();
      // x only adds an address set; y only changes the switch: no row both write.
      const x = { config: now.config, sets: [...now.sets, `dj_${i}_x`].sort() };
      const y = { config: `y${i}`, sets: now.sets };
      await settle(fx.c1);
      await settle(fx.c2);
      const finished: (typeof x)[] = [];
      const run = async (c: DatabaseClient<NBTables>, w: typeof x): Promise<ApplyResult> => {
        const r = await applyDesired(c, mk(w.config, w.sets), { guardReads: true });
        finished.push(w);
        return r;
      };
      const results =
        i % 2 === 0
          ? await Promise.all([run(fx.c1, x), run(fx.c2, y)])
          : await Promise.all([run(fx.c2, y), run(fx.c1, x)]);
      for (const r of results) checkResult(r);
      conflicts += results.reduce((n, r) => n + r.conflicts, 0);
      expect(await read()).toEqual(finished[1]);
    }
    // Both planned from the same state every round, so one of them had to plan again.
    expect(conflicts).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it('an outside writer between plan and apply trips the guard; the re-plan wins and keeps its other columns', async () => {
    const owner = 'guard';
    const mk = (addresses: string[], mode: string): DesiredState<NBTables> => {
      const d = nbDesiredState(NB, { owner });
      const sw = d.add('Logical_Switch', { name: 'guard-sw', other_config: { mode } });
      d.add('Logical_Switch_Port', { name: 'guard-p1', addresses }, { in: sw });
      return d;
    };
    await applyDesired(fx.c1, mk(['unknown'], 'a'));
    await settle(fx.c2);
    const sw = fx.c2.find('Logical_Switch', (r) => r.name === 'guard-sw')!;
    const port = fx.c2.lookup('Logical_Switch_Port', { name: 'guard-p1' })!;
    // Before the first transaction of the apply: another client writes columns the desired
    // state leaves out (the switch's external_ids, the port's options) and one it declares.
    const racing = countingClient(fx.c1, async () => {
      await fx.c2.transact([
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['_uuid', '==', ['uuid', sw._uuid]]],
          mutations: [['external_ids', 'insert', ['map', [['note', 'outside']]]]],
        },
        {
          op: 'update',
          table: 'Logical_Switch_Port',
          where: [['_uuid', '==', ['uuid', port._uuid]]],
          row: {
            options: ['map', [['requested-chassis', 'hv1']]],
            addresses: ['set', ['unknown', 'router']],
          },
        },
      ]);
    });
    const r = await applyDesired(racing.client, mk(['0a:00:00:00:00:07 10.0.0.7'], 'b'));
    expect(r.outcome).toBe('applied');
    expect(r.conflicts).toBeGreaterThanOrEqual(1);
    expect(r.attempts).toBe(r.conflicts + 1);
    expect(racing.count()).toBe(r.attempts);
    const t = await dump(fx.server.remote, ['Logical_Switch', 'Logical_Switch_Port']);
    const swRow = t.get('Logical_Switch')!.rows.find((x) => x['name'] === 'guard-sw')!;
    const pRow = t.get('Logical_Switch_Port')!.rows.find((x) => x['name'] === 'guard-p1')!;
    expect(wireMap(swRow['other_config'])).toEqual({ mode: 'b' });
    expect(wireMap(swRow['external_ids'])).toEqual({ note: 'outside', 'ovnkit-owner': owner });
    expect(wireMap(pRow['options'])).toEqual({ 'requested-chassis': 'hv1' });
    expect(wireSet(pRow['addresses'])).toEqual(['0a:00:00:00:00:07 10.0.0.7']);
    expect(wireMap(pRow['external_ids'])).toEqual({ 'ovnkit-owner': owner });
  }, 60_000);
});
