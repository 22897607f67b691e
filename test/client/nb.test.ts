/**
 * The NB model (generated from OVN NB 7.18.0) against every target (both
 * servers, and the real one over `ws:` through the bridge):
 *
 * - schema drift: exactly Debian's NB 7.0.0 schema
 *   (/usr/share/ovn/ovn-nb.ovsschema), written to with the real `ovn-nbctl`;
 * - extra server tables and columns, and a column whose type the model
 *   cannot read;
 * - a client index on the `external_ids` key `pod`.
 */

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/client/open.js';
import { NB } from '../../src/nb/index.js';
import { SchemaDriftError } from '../../src/ovsdb/schema/compat.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { IndexError } from '../../src/rows/indexes.js';
import type { OvsdbServerHandle } from '../../src/testing/index.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import { rawConnection, until } from './helpers/fixtures.js';

const run = promisify(execFile);
const DEBIAN_NB = '/usr/share/ovn/ovn-nb.ovsschema';

/** Run the real `ovn-nbctl` on the server's own socket (a raw writer: never through the bridge). */
function nbctl(server: OvsdbServerHandle, ...args: string[]): Promise<{ stdout: string }> {
  return run('ovn-nbctl', [`--db=${server.unixRemote}`, ...args]);
}

describe.each(TARGETS)('NB model against %s', (target) => {
  describe('schema drift: model 7.18.0 against the 7.0.0 server', () => {
    const fx = useTarget(target, { schemaPath: DEBIAN_NB });
    beforeAll(async () => {
      await nbctl(
        fx.server,
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
      );
      await nbctl(fx.server, 'acl-add', 'sw0', 'to-lport', '1000', 'ip4', 'allow');
    });

    it('reports the differences and monitors what the server has', async () => {
      const version = (JSON.parse(readFileSync(DEBIAN_NB, 'utf8')) as { version: string }).version;
      expect(version).toBe('7.0.0');
      const c = connectDatabase({ remotes: fx.remote, model: NB });
      fx.onClose(() => c.close());
      await c.ready;
      const compat = c.compat!;
      expect(compat).toMatchObject({
        modelVersion: '7.18.0',
        serverVersion: '7.0.0',
        identical: false,
      });
      expect(compat.missingTables).toEqual(
        expect.arrayContaining([
          'DHCP_Relay',
          'Logical_Switch_Port_Health_Check',
          'Sample',
          'Sampling_App',
        ]),
      );
      expect(compat.missingColumns['Logical_Switch_Port']).toEqual(['health_checks', 'peer']);
      expect(compat.missingColumns['ACL']).toEqual(expect.arrayContaining(['sample_new', 'tier']));
      expect(compat.extraTables).toEqual([]);
      // Missing tables are not monitored; missing columns are absent from the rows.
      expect(c.isMonitored('Sample')).toBe(false);
      expect(c.count('Sample')).toBe(0);
      const lsp = c.lookup('Logical_Switch_Port', { name: 'p1' })!;
      expect(lsp).toMatchObject({ name: 'p1', addresses: ['0a:00:00:00:00:01 10.0.0.1'] });
      expect(lsp).not.toHaveProperty('peer');
      expect(lsp).not.toHaveProperty('health_checks');
      const acl = c.find('ACL', (a) => a.priority === 1000)!;
      expect(acl).toMatchObject({ direction: 'to-lport', match: 'ip4', action: 'allow' });
      expect('tier' in acl).toBe(false);
      expect(c.absentColumns('ACL')).toEqual(expect.arrayContaining(['sample_new', 'tier']));
      const sw = c.find('Logical_Switch', (s) => s.name === 'sw0')!;
      expect(sw.ports).toEqual([lsp._uuid]);
      expect(sw.acls).toEqual([acl._uuid]);
    });

    it('fails writes that touch missing tables or columns before sending them', async () => {
      const c = connectDatabase({ remotes: fx.remote, model: NB });
      fx.onClose(() => c.close());
      await c.ready;
      const sw = c.find('Logical_Switch', (s) => s.name === 'sw0')!;
      const err = await c
        .transactRaw([
          {
            op: 'insert',
            table: 'Logical_Switch_Port',
            row: { name: 'p2', peer: 'x' },
            'uuid-name': 'p',
          },
          {
            op: 'mutate',
            table: 'Logical_Switch',
            where: [['_uuid', '==', ['uuid', sw._uuid]]],
            mutations: [['ports', 'insert', ['named-uuid', 'p']]],
          },
        ] as Operation[])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaDriftError);
      expect(err).toMatchObject({
        table: 'Logical_Switch_Port',
        column: 'peer',
        opIndex: 0,
        serverVersion: '7.0.0',
      });
      expect((err as Error).message).toMatch(
        /Logical_Switch_Port\.peer does not exist in the server's schema \(version 7\.0\.0\)/,
      );
      await expect(
        c.transactRaw([{ op: 'insert', table: 'Sample', row: { metadata: 1 } } as Operation]),
      ).rejects.toMatchObject({ name: 'SchemaDriftError', table: 'Sample', column: undefined });
      await expect(
        c.transactRaw([{ op: 'select', table: 'ACL', where: [['tier', '==', 0]] } as Operation]),
      ).rejects.toBeInstanceOf(SchemaDriftError);
      expect(c.lookup('Logical_Switch_Port', { name: 'p2' })).toBeUndefined();
      // A write within the common schema works and is read back.
      await c.transactRaw([
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: { name: 'p2', type: 'localnet' },
          'uuid-name': 'p',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['_uuid', '==', ['uuid', sw._uuid]]],
          mutations: [['ports', 'insert', ['named-uuid', 'p']]],
        },
      ] as Operation[]);
      expect(c.lookup('Logical_Switch_Port', { name: 'p2' })?.type).toBe('localnet');
    });
  });

  describe('extra server tables and columns, and unreadable types', () => {
    const fx = useTarget(target, () => {
      const schema = JSON.parse(readFileSync(DEBIAN_NB, 'utf8')) as {
        tables: Record<string, { columns: Record<string, unknown> }>;
      };
      schema.tables['Logical_Switch_Port']!.columns['zz_extra'] = { type: 'string' };
      // Another atomic type: unreadable. A set where the model has an optional: readable.
      schema.tables['Logical_Switch_Port']!.columns['tag_request'] = {
        type: { key: 'string', min: 0, max: 1 },
      };
      schema.tables['Logical_Switch_Port']!.columns['parent_name'] = {
        type: { key: 'string', min: 0, max: 4 },
      };
      schema.tables['Zz_Extra'] = { columns: { v: { type: 'string' } } } as never;
      (schema.tables['Zz_Extra'] as { isRoot?: boolean }).isRoot = true;
      return { schema };
    });

    it('ignores what only the server has and leaves out what the model cannot read', async () => {
      const c = connectDatabase({ remotes: fx.remote, model: NB });
      fx.onClose(() => c.close());
      await c.ready;
      const raw = await rawConnection(fx.unixRemote);
      fx.onClose(() => raw.close());
      await raw.transact('OVN_Northbound', [
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: { name: 'px', zz_extra: 'hi', tag_request: 'x' },
          'uuid-name': 'p',
        },
        { op: 'insert', table: 'Logical_Switch', row: { name: 'swx', ports: ['named-uuid', 'p'] } },
        { op: 'insert', table: 'Zz_Extra', row: { v: 'x' } },
      ] as Operation[]);
      await c.transactRaw([{ op: 'comment', comment: 'sync' }]);
      const lsp = c.lookup('Logical_Switch_Port', { name: 'px' })!;
      expect(lsp).not.toHaveProperty('zz_extra');
      expect(lsp).not.toHaveProperty('tag_request'); // left out of the monitor: absent
      expect(c.hasColumn('Logical_Switch_Port', 'tag_request')).toBe(false);
      expect(c.compat?.extraTables).toEqual(['Zz_Extra']);
      expect(c.compat?.extraColumns['Logical_Switch_Port']).toEqual(['zz_extra']);
      expect(c.compat?.typeDifferences).toContainEqual({
        table: 'Logical_Switch_Port',
        column: 'tag_request',
        model: 'optional integer 0–4095',
        server: 'optional string',
        incompatible: true,
        reads: 'none',
        writes: 'none',
        rowsMayLack: false,
        serverOnly: [],
        modelOnly: [],
      });
      // A write to it is refused before sending.
      await expect(
        c.transactRaw([
          {
            op: 'update',
            table: 'Logical_Switch_Port',
            where: [['name', '==', 'px']],
            row: { tag_request: 1 },
          },
        ]),
      ).rejects.toMatchObject({
        name: 'SchemaDriftError',
        column: 'tag_request',
        value: 1,
        serverType: 'optional string',
      });
    });

    it('reads a set the model has as an optional while it holds at most one element', async () => {
      const c = connectDatabase({ remotes: fx.remote, model: NB });
      fx.onClose(() => c.close());
      await c.ready;
      expect(c.compat?.typeDifferences).toContainEqual(
        expect.objectContaining({
          column: 'parent_name',
          reads: 'wider',
          writes: 'exact',
          rowsMayLack: true,
        }),
      );
      const ports = (names: string[]) =>
        names.map((n) => ({
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: { name: n },
          'uuid-name': n,
        }));
      await c.transactRaw([
        ...ports(['p0', 'p1', 'p2']),
        {
          op: 'insert',
          table: 'Logical_Switch',
          row: {
            name: 'swp',
            ports: [
              'set',
              [
                ['named-uuid', 'p0'],
                ['named-uuid', 'p1'],
                ['named-uuid', 'p2'],
              ],
            ],
          },
        },
      ] as Operation[]);
      const set = async (name: string, value: unknown) => {
        const raw = await rawConnection(fx.unixRemote);
        try {
          await raw.transact('OVN_Northbound', [
            {
              op: 'update',
              table: 'Logical_Switch_Port',
              where: [['name', '==', name]],
              row: { parent_name: value },
            },
          ] as Operation[]);
        } finally {
          raw.close();
        }
        await c.transactRaw([{ op: 'comment', comment: 'sync' }]);
      };
      await set('p1', 'a');
      await set('p2', ['set', ['a', 'b']]);
      expect(c.lookup('Logical_Switch_Port', { name: 'p0' })!.parent_name).toBeNull();
      expect(c.lookup('Logical_Switch_Port', { name: 'p1' })!.parent_name).toBe('a');
      // Two values: no form in the model's type, so the row lacks the column.
      expect(c.lookup('Logical_Switch_Port', { name: 'p2' })).not.toHaveProperty('parent_name');
      // Diffs of the server's set apply to the value kept aside: one element left reads again.
      await set('p2', ['set', ['b', 'c']]);
      expect(c.lookup('Logical_Switch_Port', { name: 'p2' })).not.toHaveProperty('parent_name');
      await set('p2', 'c');
      expect(c.lookup('Logical_Switch_Port', { name: 'p2' })!.parent_name).toBe('c');
      // The model's writes are the server's values: one element.
      await c.transactRaw([
        {
          op: 'update',
          table: 'Logical_Switch_Port',
          where: [['name', '==', 'p0']],
          row: { parent_name: 'z' },
        },
      ] as Operation[]);
      expect(c.lookup('Logical_Switch_Port', { name: 'p0' })!.parent_name).toBe('z');
    });
  });

  describe('client index on external_ids:pod', () => {
    const fx = useTarget(target, { schemaPath: 'schema/ovn-nb-7.18.0.ovsschema' });

    it('finds ports by pod (non-unique) and follows changes', async () => {
      const c = connectDatabase({
        remotes: fx.remote,
        model: NB,
        indexes: {
          Logical_Switch_Port: {
            pod: { column: 'external_ids', key: 'pod' },
            byType: { column: 'type' },
            mac: { compute: (p) => p.addresses.map((a) => a.split(' ')[0]!) },
          },
        },
      });
      fx.onClose(() => c.close());
      await c.ready;
      await nbctl(
        fx.server,
        'ls-add',
        'sw',
        '--',
        'lsp-add',
        'sw',
        'a',
        '--',
        'lsp-add',
        'sw',
        'b',
        '--',
        'lsp-add',
        'sw',
        'c',
      );
      await nbctl(
        fx.server,
        'set',
        'logical_switch_port',
        'a',
        'external_ids:pod=ns/web',
        'addresses=["0a:00:00:00:00:0a 10.0.0.10"]',
      );
      await nbctl(
        fx.server,
        'set',
        'logical_switch_port',
        'b',
        'external_ids:pod=ns/web',
        'external_ids:other=1',
      );
      await nbctl(
        fx.server,
        'set',
        'logical_switch_port',
        'c',
        'external_ids:pod=ns/db',
        'type=localnet',
      );
      await until(
        () => c.byIndex('Logical_Switch_Port', 'pod', 'ns/db').length === 1,
        5000,
        'the index',
      );
      const names = (pod: string) =>
        c
          .byIndex('Logical_Switch_Port', 'pod', pod)
          .map((p) => p.name)
          .sort();
      expect(names('ns/web')).toEqual(['a', 'b']);
      expect(names('ns/db')).toEqual(['c']);
      expect(c.byIndex('Logical_Switch_Port', 'byType', 'localnet').map((p) => p.name)).toEqual([
        'c',
      ]);
      expect(
        c.byIndex('Logical_Switch_Port', 'mac', '0a:00:00:00:00:0a').map((p) => p.name),
      ).toEqual(['a']);

      await nbctl(fx.server, 'set', 'logical_switch_port', 'b', 'external_ids:pod=ns/db');
      await nbctl(fx.server, 'remove', 'logical_switch_port', 'a', 'external_ids', 'pod');
      await until(() => names('ns/web').length === 0, 5000, 'the index to follow');
      expect(names('ns/db')).toEqual(['b', 'c']);
      await nbctl(fx.server, 'lsp-del', 'c');
      await until(() => names('ns/db').length === 1, 5000, 'the deletion');
      expect(names('ns/db')).toEqual(['b']);
      expect(() => c.byIndex('Logical_Switch_Port', 'nope' as 'pod', 'x')).toThrow(IndexError);
    });
  });
});
