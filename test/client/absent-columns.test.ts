/**
 * Columns the server lacks read as absent, never as a made-up default: the
 * bundled NB model (7.18.0) against a server of NB 7.0.0 (the schema OVN
 * 23.03 installs), on every target, with rows written by the real
 * `ovn-nbctl` and by raw transactions.
 *
 * - Every row of every table has exactly the columns the server has: a
 *   column it lacks (`ACL.tier`, `Logical_Switch_Port.peer`, `NAT.priority`,
 *   …) is not a property of the row; the others hold what a client of the
 *   model generated from 7.0.0 reads (row for row, value for value).
 * - `absentColumns` and `hasColumn` say which columns those are.
 * - Events, `waitFor` and client indexes see the same rows; an index on a
 *   missing column names it when used, and does not stop the sync.
 * - A write to a missing column (the DSL, the transaction view) fails with
 *   `SchemaDriftError` naming `table.column` before anything is sent; rows
 *   the view inserts lack it too.
 * - A monitor condition on a missing column is a `SchemaDriftError`.
 */

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/client/open.js';
import { aclAdd, createNb, lsAdd, lspAdd, NB, NB_COMPAT } from '../../src/nb/index.js';
import { SchemaDriftError } from '../../src/ovsdb/schema/compat.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { IndexError } from '../../src/rows/indexes.js';
import type { OvsdbServerHandle } from '../../src/testing/index.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import { NB as NB70 } from '../nb/fixtures/models/nb-7.0.0/index.js';
import { rawConnection } from './helpers/fixtures.js';

const run = promisify(execFile);
const NB_7_0 = 'test/fixtures/schemas/ovn-nb-7.0.0.ovsschema';

/** The columns of the bundled model that NB 7.0.0 lacks, per table (tables it has). */
const MISSING_IN_7_0: Readonly<Record<string, readonly string[]>> = {
  ACL: ['network_function_group', 'sample_est', 'sample_new', 'tier'],
  DNS: ['options'],
  Logical_Router_Policy: ['bfd_sessions', 'chain', 'jump_chain', 'output_port'],
  Logical_Router_Port: ['dhcp_relay', 'status'],
  Logical_Router_Static_Route: ['selection_fields'],
  Logical_Switch_Port: ['health_checks', 'peer'],
  Mirror: ['mirror_rules'],
  NAT: ['match', 'priority'],
  SSL: ['ssl_ciphersuites'],
};

/** Run the real `ovn-nbctl` on the server's own socket (never through the bridge). */
async function nbctl(server: OvsdbServerHandle, ...args: string[]): Promise<string> {
  return (await run('ovn-nbctl', [`--db=${server.unixRemote}`, ...args])).stdout.trim();
}

/** What `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe.each(TARGETS)('columns the server lacks, against %s', (target) => {
  const fx = useTarget(target, { schemaPath: NB_7_0 });
  let rawAcl = '';

  beforeAll(async () => {
    await nbctl(
      fx.server,
      '--',
      'ls-add',
      'sw0',
      '--',
      'lsp-add',
      'sw0',
      'p1',
      '--',
      'lsp-set-addresses',
      'p1',
      '0a:00:00:00:00:01 10.0.0.1',
      '--',
      'lr-add',
      'lr0',
      '--',
      'lrp-add',
      'lr0',
      'lr0-sw0',
      '00:00:00:00:ff:01',
      '10.0.0.254/24',
      '--',
      'lr-nat-add',
      'lr0',
      'snat',
      '172.16.0.1',
      '10.0.0.0/24',
      '--',
      'lr-policy-add',
      'lr0',
      '100',
      'ip4.src == 10.0.0.0/24',
      'allow',
      '--',
      'lr-route-add',
      'lr0',
      '0.0.0.0/0',
      '172.16.0.254',
      '--',
      'lb-add',
      'lb0',
      '10.0.0.100:80',
      '10.0.0.1:8080',
      'tcp',
      '--',
      'ls-lb-add',
      'sw0',
      'lb0',
    );
    await nbctl(fx.server, 'acl-add', 'sw0', 'to-lport', '1000', 'ip4', 'allow');
    // A second ACL, and a DNS row, by a raw transaction.
    const raw = await rawConnection(fx.unixRemote);
    try {
      const [ls] = (await raw.transact('OVN_Northbound', [
        {
          op: 'select',
          table: 'Logical_Switch',
          where: [['name', '==', 'sw0']],
          columns: ['_uuid'],
        },
      ])) as [{ rows: { _uuid: ['uuid', string] }[] }];
      const sw = ls.rows[0]!._uuid;
      const reply = (await raw.transact('OVN_Northbound', [
        {
          op: 'insert',
          table: 'ACL',
          row: { direction: 'from-lport', priority: 900, match: 'ip6', action: 'drop', label: 7 },
          'uuid-name': 'acl',
        },
        {
          op: 'insert',
          table: 'DNS',
          row: { records: ['map', [['web.example', '10.0.0.1']]] },
          'uuid-name': 'dns',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['_uuid', '==', sw]],
          mutations: [
            ['acls', 'insert', ['named-uuid', 'acl']],
            ['dns_records', 'insert', ['named-uuid', 'dns']],
          ],
        },
      ] as Operation[])) as [{ uuid: ['uuid', string] }];
      rawAcl = reply[0].uuid[1];
    } finally {
      raw.close();
    }
  });

  it('rows lack exactly the columns the server lacks; the others read as with the 7.0.0 model', async () => {
    const c = connectDatabase({ remotes: fx.remote, model: NB, compat: NB_COMPAT });
    const exact = connectDatabase({ remotes: fx.remote, model: NB70 });
    fx.onClose(() => c.close());
    fx.onClose(() => exact.close());
    await Promise.all([c.ready, exact.ready]);
    expect(exact.compat?.identical).toBe(true);

    const byNbctl = c.find('ACL', (a) => a.priority === 1000)!;
    expect(byNbctl).toMatchObject({ direction: 'to-lport', match: 'ip4', action: 'allow' });
    // Before, a column the server lacks read as its default: ACL.tier was 0.
    expect('tier' in byNbctl).toBe(false);
    expect(byNbctl.tier).toBeUndefined();
    expect(byNbctl).not.toHaveProperty('sample_new');
    expect(byNbctl).not.toHaveProperty('sample_est');
    expect(byNbctl).not.toHaveProperty('network_function_group');
    const byRaw = c.get('ACL', rawAcl)!;
    expect(byRaw).toMatchObject({ priority: 900, match: 'ip6', action: 'drop', label: 7 });
    expect('tier' in byRaw).toBe(false);
    expect(Object.isFrozen(byRaw)).toBe(true);

    const lsp = c.lookup('Logical_Switch_Port', { name: 'p1' })!;
    expect(lsp.addresses).toEqual(['0a:00:00:00:00:01 10.0.0.1']);
    expect('peer' in lsp).toBe(false);
    expect('health_checks' in lsp).toBe(false);
    const lrp = c.lookup('Logical_Router_Port', { name: 'lr0-sw0' })!;
    expect(lrp.networks).toEqual(['10.0.0.254/24']);
    expect('status' in lrp).toBe(false);
    expect('dhcp_relay' in lrp).toBe(false);
    const nat = c.find('NAT', (n) => n.external_ip === '172.16.0.1')!;
    expect(nat).toMatchObject({ type: 'snat', logical_ip: '10.0.0.0/24', gateway_port: null });
    expect('priority' in nat).toBe(false);
    expect('match' in nat).toBe(false);
    const policy = c.find('Logical_Router_Policy', (p) => p.priority === 100)!;
    expect(policy.action).toBe('allow');
    for (const col of ['chain', 'jump_chain', 'output_port', 'bfd_sessions']) {
      expect(policy).not.toHaveProperty(col);
    }
    expect(c.find('DNS', () => true)).not.toHaveProperty('options');
    // Logical_Router and Load_Balancer lose nothing on 7.0.0.
    const lr = c.find('Logical_Router', (r) => r.name === 'lr0')!;
    const lb = c.find('Load_Balancer', (l) => l.name === 'lb0')!;
    expect(Object.keys(lr).sort()).toEqual(
      ['_uuid', '_version', ...NB.schema.tables['Logical_Router']!.columnNames].sort(),
    );
    expect(Object.keys(lb).sort()).toEqual(
      ['_uuid', '_version', ...NB.schema.tables['Load_Balancer']!.columnNames].sort(),
    );
    expect(lb.vips).toEqual({ '10.0.0.100:80': '10.0.0.1:8080' });

    // absentColumns and hasColumn.
    for (const table of Object.keys(NB.schema.tables)) {
      if (c.compat!.missingTables.includes(table)) continue;
      expect(c.absentColumns(table as never), table).toEqual(MISSING_IN_7_0[table] ?? []);
    }
    expect(c.absentColumns('Sample')).toEqual(NB.schema.tables['Sample']!.columnNames);
    expect(c.hasColumn('ACL', 'tier')).toBe(false);
    expect(c.hasColumn('ACL', 'priority')).toBe(true);
    expect(c.hasColumn('ACL', '_uuid')).toBe(true);
    expect(c.hasColumn('Sample', 'metadata')).toBe(false);

    // Every row of every table: the columns the server has, with the values
    // the exact 7.0.0 model reads.
    let rows = 0;
    for (const table of Object.keys(NB70.schema.tables)) {
      const absent = new Set(c.absentColumns(table as never));
      const expected = ['_uuid', '_version', ...NB.schema.tables[table]!.columnNames]
        .filter((col) => !absent.has(col))
        .sort();
      expect(c.count(table as never)).toBe(exact.count(table as never));
      for (const row of exact.rows(table as never) as Iterable<{ _uuid: string }>) {
        const mine = c.get(table as never, row._uuid) as unknown as object;
        expect(Object.keys(mine).sort(), table).toEqual(expected);
        expect(mine, table).toEqual(row);
        rows++;
      }
    }
    expect(rows).toBeGreaterThan(10);
  });

  it('events, waitFor and client indexes see the rows without the column; an index on it names it', async () => {
    const c = connectDatabase({
      remotes: fx.remote,
      model: NB,
      compat: NB_COMPAT,
      indexes: {
        ACL: {
          byTier: { column: 'tier' },
          tierOrNone: { compute: (a) => (a.tier === undefined ? 'none' : String(a.tier)) },
        },
        Logical_Switch_Port: { peer: { column: 'peer' } },
      },
    });
    fx.onClose(() => c.close());
    await c.ready;
    const inserted: object[] = [];
    const updated: [object, object][] = [];
    c.on('ACL', 'insert', (row) => {
      inserted.push(row);
    });
    c.on('ACL', 'update', (row, old) => {
      updated.push([row, old]);
    });
    const waited = c.waitFor('ACL', (a) => a.priority === 1500 && a.tier === undefined, {
      timeoutMs: 10_000,
    });
    await nbctl(fx.server, 'acl-add', 'sw0', 'from-lport', '1400', 'tcp', 'drop');
    const uuid = (
      await nbctl(fx.server, '--bare', '--columns=_uuid', 'find', 'acl', 'priority=1400')
    ).split('\n')[0]!;
    await nbctl(fx.server, 'set', 'acl', uuid, 'priority=1500');
    const row = await waited;
    expect(row._uuid).toBe(uuid);
    await c.drained();
    expect(inserted).toHaveLength(1);
    expect(inserted[0]).toMatchObject({ priority: 1400, match: 'tcp' });
    expect(inserted[0]).not.toHaveProperty('tier');
    expect(updated).toHaveLength(1);
    expect(updated[0]![0]).toMatchObject({ priority: 1500 });
    expect(updated[0]![1]).toMatchObject({ priority: 1400 });
    expect(updated[0]![0]).not.toHaveProperty('tier');
    expect(updated[0]![1]).not.toHaveProperty('tier');

    // The computed index sees the column absent; the column index names it.
    expect(
      c
        .byIndex('ACL', 'tierOrNone', 'none')
        .map((a) => a.priority)
        .sort(),
    ).toEqual([1000, 1500, 900].sort());
    expect(c.byIndex('ACL', 'tierOrNone', '0')).toEqual([]);
    const e = thrown(() => c.byIndex('ACL', 'byTier', 0));
    expect(e).toBeInstanceOf(IndexError);
    expect((e as Error).message).toMatch(/ACL\.tier does not exist in the server's schema/);
    expect(() => c.byIndex('Logical_Switch_Port', 'peer', 'x')).toThrow(
      /Logical_Switch_Port\.peer does not exist in the server's schema/,
    );
    await nbctl(fx.server, 'acl-del', 'sw0', 'from-lport', '1500', 'tcp');
  });

  it('a write to a missing column fails before sending with SchemaDriftError; rows the view inserts lack it', async () => {
    const c = connectDatabase({ remotes: fx.remote, model: NB, compat: NB_COMPAT });
    fx.onClose(() => c.close());
    await c.ready;
    const nb = createNb(c);
    const lsp = c.lookup('Logical_Switch_Port', { name: 'p1' })!;
    const nat = c.find('NAT', (n) => n.external_ip === '172.16.0.1')!;

    // In the callback, at the operation that would write it.
    const dry = thrown(() =>
      nb.dryRun((t) => {
        lsAdd(t, 'drift-sw');
        aclAdd(
          t,
          { switch: 'drift-sw' },
          { direction: 'to-lport', priority: 1, match: 'ip4', action: 'drop', tier: 1 },
        );
      }),
    );
    expect(dry).toBeInstanceOf(SchemaDriftError);
    expect(dry).toMatchObject({ table: 'ACL', column: 'tier', serverVersion: '7.0.0' });
    expect((dry as SchemaDriftError).opIndex).toBeGreaterThan(0);
    expect((dry as Error).message).toMatch(
      /column ACL\.tier does not exist in the server's schema/,
    );

    const writes: [
      string,
      string,
      (t: Parameters<Parameters<typeof nb.transact>[0]>[0]) => void,
    ][] = [
      [
        'Logical_Switch_Port',
        'peer',
        (t) => t.update('Logical_Switch_Port', lsp._uuid, { peer: 'lr0-sw0' }),
      ],
      ['NAT', 'priority', (t) => t.mutate('NAT', nat._uuid, [['priority', '+=', 1]])],
      [
        'Logical_Router_Port',
        'status',
        (t) =>
          t.insert('Logical_Router_Port', {
            name: 'lrp-x',
            mac: '00:00:00:00:ff:02',
            networks: ['10.0.1.1/24'],
            status: { hosting: 'x' },
          }),
      ],
      [
        'ACL',
        'tier',
        (t) => {
          lsAdd(t, 'drift-sw');
          aclAdd(
            t,
            { switch: 'drift-sw' },
            { direction: 'to-lport', priority: 1, match: 'ip4', action: 'drop', tier: 1 },
          );
        },
      ],
    ];
    for (const [table, column, build] of writes) {
      const error = await nb.transact(build).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error, `${table}.${column}`).toBeInstanceOf(SchemaDriftError);
      expect(error).toMatchObject({ table, column, serverVersion: '7.0.0' });
    }
    // Nothing was sent: nothing changed.
    expect(c.find('Logical_Switch', (s) => s.name === 'drift-sw')).toBeUndefined();
    expect(c.lookup('Logical_Router_Port', { name: 'lrp-x' })).toBeUndefined();
    expect(c.get('NAT', nat._uuid)).toBe(nat);
    expect(c.get('Logical_Switch_Port', lsp._uuid)).toBe(lsp);

    // A write within the server's columns works; the rows it inserts lack the missing ones.
    const { value } = await nb.transact((t) => {
      const sw = lsAdd(t, 'sw-ok');
      const port = lspAdd(t, sw, 'p-ok', { addresses: ['0a:00:00:00:00:02'] });
      const inView = t.get('Logical_Switch_Port', port)!;
      expect(inView).toMatchObject({ name: 'p-ok', type: '', enabled: null });
      expect('peer' in inView).toBe(false);
      expect('health_checks' in inView).toBe(false);
      aclAdd(
        t,
        { switch: sw },
        { direction: 'to-lport', priority: 2, match: 'ip4', action: 'drop' },
      );
      const acl = t.find('ACL', (a) => a.priority === 2)!;
      expect('tier' in acl).toBe(false);
      return port;
    });
    const written = c.get('Logical_Switch_Port', value)!;
    expect(written).toMatchObject({ name: 'p-ok', addresses: ['0a:00:00:00:00:02'] });
    expect('peer' in written).toBe(false);
    expect(nb.show()).toMatch(/switch [0-9a-f-]+ \(sw-ok\)\n {4}port p-ok/);
    await nbctl(fx.server, 'ls-del', 'sw-ok');
  });

  it('a monitor condition on a missing column is a SchemaDriftError naming it', async () => {
    const c = connectDatabase({ remotes: fx.remote, model: NB, compat: NB_COMPAT });
    fx.onClose(() => c.close());
    await c.ready;
    const before = c.count('ACL');
    const error = await c.setMonitor('ACL', { where: [['tier', '==', 0]] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SchemaDriftError);
    expect(error).toMatchObject({ table: 'ACL', column: 'tier', opIndex: -1 });
    expect((error as Error).message).toMatch(
      /^the monitor condition of table ACL: column ACL\.tier does not exist/,
    );
    // The client goes on as before.
    expect(c.status.state).toBe('connected');
    expect(c.count('ACL')).toBe(before);
    await c.setMonitor('ACL', { where: [['priority', '>=', 1000]] });
    expect([...c.rows('ACL')].every((a) => a.priority >= 1000)).toBe(true);

    // Given at connection: the server cannot be used, and the client says why.
    const bad = connectDatabase({
      remotes: fx.remote,
      model: NB,
      tables: { ACL: { where: [['tier', '==', 0]] }, Logical_Switch: true },
      backoff: { maxRetries: 0 },
    });
    fx.onClose(() => bad.close());
    await expect(bad.ready).rejects.toThrow(
      /column ACL\.tier does not exist in the server's schema/,
    );
  });

  it("with absentColumnConditions 'drop', clauses on a missing column are not sent, and reported", async () => {
    const warnings: string[] = [];
    const c = connectDatabase({
      remotes: fx.remote,
      model: NB,
      absentColumnConditions: 'drop',
      // A row is monitored when any clause holds: the tier clause (no such column on
      // 7.0.0, so it can match no row there) is dropped, the priority clause sent.
      tables: {
        ACL: {
          where: [
            ['tier', '==', 1],
            ['priority', '>=', 1000],
          ],
        },
        Logical_Switch: { where: [['name', '==', 'sw0']] },
      },
      logger: { warn: (m) => warnings.push(m) },
    });
    fx.onClose(() => c.close());
    await c.ready;
    const all = await nbctl(fx.server, '--bare', '--columns=priority', 'list', 'ACL');
    const expected = all
      .split('\n')
      .filter((l) => l !== '')
      .map(Number)
      .filter((p) => p >= 1000);
    expect(expected.length).toBeGreaterThan(0);
    expect([...c.rows('ACL')].map((a) => a.priority).sort()).toEqual(expected.sort());
    expect(c.droppedConditions('ACL')).toEqual([['tier', '==', 1]]);
    expect(c.droppedConditions('Logical_Switch')).toEqual([]);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /monitor condition of table ACL: 1 clause\(s\) not sent, on columns the server's schema \(version 7\.0\.0\) lacks: \[\["tier","==",1\]\]/,
      ),
    );
    // Every clause dropped: no row, as the C IDL's [false].
    await c.setMonitor('ACL', { where: [['tier', '==', 2]] });
    expect(c.count('ACL')).toBe(0);
    expect(c.droppedConditions('ACL')).toEqual([['tier', '==', 2]]);
    // Back to a condition the server has in full.
    await c.setMonitor('ACL', { where: [['priority', '>=', 0]] });
    expect(c.count('ACL')).toBe(all.split('\n').filter((l) => l !== '').length);
    expect(c.droppedConditions('ACL')).toEqual([]);
  });

  it('a monitor condition is checked against the model when the client is made', () => {
    expect(() =>
      connectDatabase({
        remotes: fx.remote,
        model: NB,
        tables: { ACL: { where: [['priority', '==', 'high' as never]] } },
      }),
    ).toThrow(/ACL\.priority: condition "==": expected an integer, got string "high"/);
  });

  it('the first connection to a server of another schema syncs at once (no failed first attempt), and logs the drift', async () => {
    const warnings: string[] = [];
    const c = connectDatabase({
      remotes: fx.remote,
      model: NB,
      backoff: { maxRetries: 0 },
      logger: { warn: (m) => warnings.push(m) },
    });
    fx.onClose(() => c.close());
    await c.ready;
    expect(c.stats.fullSyncs).toBe(1);
    expect(warnings.filter((w) => w.startsWith('schema drift:'))).toEqual([
      expect.stringMatching(/^schema drift: model 7\.18\.0, server 7\.0\.0; .*ACL\.\{.*tier/),
    ]);
  });

  it('the compat option is checked against the model', () => {
    expect(() =>
      connectDatabase({ remotes: fx.remote, model: NB, compat: { ACL: ['nope' as 'tier'] } }),
    ).toThrow(/compat\.ACL: the table has no column nope/);
    expect(() =>
      connectDatabase({ remotes: fx.remote, model: NB, compat: { Nope: [] } as never }),
    ).toThrow(/compat: database OVN_Northbound has no table Nope/);
  });
});
