/**
 * Load balancer groups against ovsdb-server with the bundled NB 7.18.0
 * schema (ovn-nbctl 23.03 has no commands for them): a group of load
 * balancers attached to a switch and a router, as the server stores it;
 * deleting an attached group (the DSL detaches it first: the references are
 * strong); a load balancer deleted out of a group (a weak reference); and
 * `mayExist`/`ifExists` and the typed errors, with no operation added.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  lbAdd,
  lbDel,
  lrAdd,
  lsAdd,
  type NbTxn,
  NotFoundError,
} from '../../src/nb/index.js';
import {
  lbGroupAdd,
  lbGroupAddLb,
  lbGroupDel,
  lbGroupDelLb,
  lbGroupList,
  lrLbGroupAdd,
  lrLbGroupDel,
  lsLbGroupAdd,
  lsLbGroupDel,
} from '../../src/nb/lb-group.js';
import { NB_SCHEMA_7_18, type NbServer, rawDump, rowsOf, startNb } from './helpers/differential.js';
import { dryTxn } from './helpers/dry.js';

function thrown(t: NbTxn, f: (t: NbTxn) => unknown): Error {
  const before = t.tx.size;
  try {
    f(t);
  } catch (e) {
    expect(t.tx.size, 'no operation added by the failing call').toBe(before);
    return e as Error;
  }
  throw new Error('expected an error');
}

/** The server's rows of `table`, by `name`, with the names of what `column` references. */
async function names(
  s: NbServer,
  table: string,
  column: string,
): Promise<Record<string, string[]>> {
  const dump = await rawDump(s.server);
  const byUuid = new Map<string, string>();
  for (const rows of Object.values(dump)) {
    for (const r of rows) {
      const u = r['_uuid'] as [string, string];
      if (typeof r['name'] === 'string') byUuid.set(u[1], r['name']);
    }
  }
  const refs = (cell: unknown): string[] => {
    const c = cell as [string, unknown];
    const list = c[0] === 'set' ? (c[1] as [string, string][]) : [c as [string, string]];
    return list.map(([, u]) => byUuid.get(u) ?? `dangling:${u}`).sort();
  };
  return Object.fromEntries(rowsOf(dump, table).map((r) => [r['name'] as string, refs(r[column])]));
}

describe('load balancer groups on ovsdb-server (NB 7.18.0)', () => {
  let s: NbServer;
  beforeAll(async () => {
    s = await startNb(NB_SCHEMA_7_18);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a group of load balancers attached to a switch and a router', async () => {
    await s.nb.transact((t) => {
      lbAdd(t, 'lb-web', { vips: { '10.0.0.10:80': ['10.0.0.11:8080'] } });
      lbAdd(t, 'lb-dns', { vips: { '10.0.0.53:53': ['10.0.0.54:53'] }, protocol: 'udp' });
      lbAdd(t, 'lb-x');
      lsAdd(t, 'sw0');
      lrAdd(t, 'lr0');
      lbGroupAdd(t, 'g0', { loadBalancers: ['lb-web', 'lb-dns'] });
      lbGroupAdd(t, 'g1');
      lsLbGroupAdd(t, 'sw0', 'g0');
      lsLbGroupAdd(t, 'sw0', 'g1');
      lrLbGroupAdd(t, 'lr0', 'g0');
      lbGroupAddLb(t, 'g1', 'lb-x');
    });
    expect(await names(s, 'Load_Balancer_Group', 'load_balancer')).toEqual({
      g0: ['lb-dns', 'lb-web'],
      g1: ['lb-x'],
    });
    expect(await names(s, 'Logical_Switch', 'load_balancer_group')).toEqual({ sw0: ['g0', 'g1'] });
    expect(await names(s, 'Logical_Router', 'load_balancer_group')).toEqual({ lr0: ['g0'] });

    // mayExist: nothing is sent again.
    const { ops } = s.nb.dryRun((t) => {
      lbGroupAdd(t, 'g0', { mayExist: true });
      lsLbGroupAdd(t, 'sw0', 'g0', { mayExist: true });
      lrLbGroupAdd(t, 'lr0', 'g0', { mayExist: true });
      lbGroupAddLb(t, 'g0', 'lb-web', { mayExist: true });
    });
    expect(ops.filter((o) => o.op !== 'wait' && o.op !== 'select')).toEqual([]);

    // Detach and remove one by one; deleting a load balancer drops it from its group (weak).
    await s.nb.transact((t) => {
      lbGroupDelLb(t, 'g0', 'lb-dns');
      lsLbGroupDel(t, 'sw0', 'g1');
    });
    await s.nb.transact((t) => lbDel(t, 'lb-x'));
    expect(await names(s, 'Load_Balancer_Group', 'load_balancer')).toEqual({
      g0: ['lb-web'],
      g1: [],
    });
    expect(await names(s, 'Logical_Switch', 'load_balancer_group')).toEqual({ sw0: ['g0'] });
    expect(s.nb.dryRun((t) => lbGroupList(t).map((g) => g.name)).value).toEqual(['g0', 'g1']);

    // A load balancer deleted in the transaction that detaches its group from a
    // switch and changes another group leaves no dangling reference in its
    // group (lbDel removes it first).
    await s.nb.transact((t) => {
      lbAdd(t, 'lb-y');
      lbAdd(t, 'lb-z');
      lbGroupAddLb(t, 'g1', 'lb-y');
      lbGroupAddLb(t, 'g0', 'lb-z');
      lsLbGroupAdd(t, 'sw0', 'g1');
    });
    await s.nb.transact((t) => {
      lbGroupDelLb(t, 'g0', 'lb-z');
      lsLbGroupDel(t, 'sw0', 'g1');
      lbDel(t, 'lb-y');
    });
    expect(await names(s, 'Load_Balancer_Group', 'load_balancer')).toEqual({
      g0: ['lb-web'],
      g1: [],
    });

    // An attached group is deleted: the switch and the router let go of it first.
    await s.nb.transact((t) => lbGroupDel(t, 'g0'));
    expect(await names(s, 'Load_Balancer_Group', 'load_balancer')).toEqual({ g1: [] });
    expect(await names(s, 'Logical_Switch', 'load_balancer_group')).toEqual({ sw0: [] });
    expect(await names(s, 'Logical_Router', 'load_balancer_group')).toEqual({ lr0: [] });

    await s.nb.transact((t) => {
      lrLbGroupAdd(t, 'lr0', 'g1');
      lsLbGroupAdd(t, 'sw0', 'g1');
    });
    await s.nb.transact((t) => {
      lrLbGroupDel(t, 'lr0');
      lsLbGroupDel(t, 'sw0');
      lbGroupDelLb(t, 'g1');
    });
    expect(await names(s, 'Logical_Router', 'load_balancer_group')).toEqual({ lr0: [] });
    expect(await names(s, 'Logical_Switch', 'load_balancer_group')).toEqual({ sw0: [] });
  });
});

describe('load balancer groups: mayExist, ifExists and typed errors', () => {
  function base(): NbTxn {
    const t = dryTxn();
    lbAdd(t, 'lb0');
    lbAdd(t, 'lb1');
    lsAdd(t, 'sw0');
    lrAdd(t, 'lr0');
    lbGroupAdd(t, 'g0', { loadBalancers: ['lb0'] });
    lsLbGroupAdd(t, 'sw0', 'g0');
    lrLbGroupAdd(t, 'lr0', 'g0');
    return t;
  }

  it('duplicates refused, mayExist returns the group unchanged', () => {
    const t = base();
    const g0 = t.find('Load_Balancer_Group', (g) => g.name === 'g0')!._uuid;
    expect(thrown(t, (t) => lbGroupAdd(t, 'g0'))).toBeInstanceOf(AlreadyExistsError);
    expect(lbGroupAdd(t, 'g0', { mayExist: true, loadBalancers: ['lb1'] })).toBe(g0);
    expect(t.get('Load_Balancer_Group', g0)!.load_balancer).toHaveLength(1);
    expect(thrown(t, (t) => lsLbGroupAdd(t, 'sw0', 'g0'))).toBeInstanceOf(AlreadyExistsError);
    expect(thrown(t, (t) => lrLbGroupAdd(t, 'lr0', g0))).toBeInstanceOf(AlreadyExistsError);
    expect(thrown(t, (t) => lbGroupAddLb(t, 'g0', 'lb0'))).toBeInstanceOf(AlreadyExistsError);
  });

  it('missing objects: NotFoundError, or nothing with ifExists', () => {
    const t = base();
    expect(thrown(t, (t) => lbGroupDel(t, 'nope'))).toBeInstanceOf(NotFoundError);
    lbGroupDel(t, 'nope', { ifExists: true });
    expect(thrown(t, (t) => lbGroupAdd(t, 'g9', { loadBalancers: ['nope'] }))).toBeInstanceOf(
      NotFoundError,
    );
    expect(thrown(t, (t) => lbGroupAddLb(t, 'nope', 'lb0'))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => lbGroupAddLb(t, 'g0', 'nope'))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => lbGroupDelLb(t, 'g0', 'lb1'))).toBeInstanceOf(NotFoundError);
    lbGroupDelLb(t, 'g0', 'lb1', { ifExists: true });
    lbGroupDelLb(t, 'g0', 'nope', { ifExists: true });
    expect(thrown(t, (t) => lsLbGroupAdd(t, 'sw0', 'nope'))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => lsLbGroupAdd(t, 'nope', 'g0'))).toBeInstanceOf(NotFoundError);
    lbGroupAdd(t, 'g1');
    expect(thrown(t, (t) => lsLbGroupDel(t, 'sw0', 'g1'))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => lrLbGroupDel(t, 'lr0', 'g1'))).toBeInstanceOf(NotFoundError);
    lsLbGroupDel(t, 'sw0', 'g1', { ifExists: true });
    lrLbGroupDel(t, 'lr0', 'nope', { ifExists: true });
  });

  it('bad arguments: InvalidArgumentError', () => {
    const t = base();
    expect(thrown(t, (t) => lbGroupAdd(t, ''))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(t, (t) => lbGroupAdd(t, 'g9', { loadBalancers: 'lb0' as never }))).toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(thrown(t, (t) => lbGroupDel(t, ''))).toBeInstanceOf(InvalidArgumentError);
  });
});
