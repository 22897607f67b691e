/**
 * The database client's public types: reads, index names, event handlers and
 * options are checked by the compiler against the model.
 */

import { describe, expectTypeOf, it } from 'vitest';
import { connectDatabase } from '../../src/client/open.js';
import type { EventContext } from '../../src/client/replica/replica.js';
import { type Acl, type LogicalSwitchPort, NB, type NBTables } from '../../src/nb/index.js';
import type { DatabaseModel } from '../../src/ovsdb/schema/model.js';

// Never connected: only the types matter here.
declare const remotes: string;

const nb = connectDatabase({
  remotes,
  model: NB,
  indexes: {
    Logical_Switch_Port: {
      pod: { column: 'external_ids', key: 'pod' },
      firstMac: {
        compute: (port) => {
          expectTypeOf(port).toEqualTypeOf<LogicalSwitchPort>();
          return port.addresses[0]?.split(' ')[0];
        },
      },
    },
  },
});

describe('connectDatabase', () => {
  it('is typed by the model', () => {
    expectTypeOf(nb.model).toEqualTypeOf<DatabaseModel<NBTables>>();
    expectTypeOf(nb.get('ACL', 'x')).toEqualTypeOf<Acl | undefined>();
    expectTypeOf(nb.lookup('Logical_Switch_Port', { name: 'p1' })).toEqualTypeOf<
      LogicalSwitchPort | undefined
    >();
    expectTypeOf(nb.filter('ACL', (a) => a.priority > 1000)).toEqualTypeOf<Acl[]>();
    expectTypeOf([...nb.rows('Logical_Switch_Port')]).toEqualTypeOf<LogicalSwitchPort[]>();
  });

  it('knows the declared client indexes by table and name', () => {
    expectTypeOf(nb.byIndex('Logical_Switch_Port', 'pod', 'ns/web')).toEqualTypeOf<
      LogicalSwitchPort[]
    >();
    nb.byIndex('Logical_Switch_Port', 'firstMac', '0a:00:00:00:00:01');
    // @ts-expect-error: no such index
    nb.byIndex('Logical_Switch_Port', 'nope', 'x');
    // @ts-expect-error: no index on ACL
    nb.byIndex('ACL', 'pod', 'x');
  });

  it('types event handlers: update gets (new, old, context)', () => {
    nb.on('Logical_Switch_Port', 'update', (row, old, context) => {
      expectTypeOf(row).toEqualTypeOf<LogicalSwitchPort>();
      expectTypeOf(old).toEqualTypeOf<LogicalSwitchPort>();
      expectTypeOf(context).toEqualTypeOf<EventContext>();
    });
    nb.on('ACL', 'delete', async (row) => {
      expectTypeOf(row).toEqualTypeOf<Acl>();
    });
    // @ts-expect-error: not an event kind
    nb.on('ACL', 'modify', () => {});
  });

  it('rejects unknown tables, columns and index columns', () => {
    // @ts-expect-error: no such table
    nb.get('Nope', 'x');
    connectDatabase({
      remotes,
      model: NB,
      // @ts-expect-error: no such column
      tables: { ACL: { columns: ['nope'] } },
    });
    connectDatabase({
      remotes,
      model: NB,
      // @ts-expect-error: no such column
      indexes: { ACL: { bad: { column: 'nope' } } },
    });
  });
});

describe('monitor conditions (`where` of `tables` and `setMonitor`)', () => {
  it('are typed by the model, as transaction conditions are', () => {
    connectDatabase({
      remotes,
      model: NB,
      tables: {
        Logical_Switch_Port: {
          where: [
            ['name', '==', 'p1'],
            ['external_ids', 'includes', { pod: 'web-1' }],
            ['tag', '>=', 10],
            ['addresses', 'excludes', ['router']],
          ],
        },
        ACL: { where: [['priority', '<', 1000], ['action', '==', 'drop'], true] },
        Logical_Switch: { where: [false] },
      },
    });
    void nb.setMonitor('ACL', { where: [['direction', '==', 'to-lport']] });
    void nb.setMonitor('ACL', { where: [['priority', '>', 100], false] });
  });

  it('reject unknown columns', () => {
    connectDatabase({
      remotes,
      model: NB,
      // @ts-expect-error: ACL has no column nope
      tables: { ACL: { where: [['nope', '==', 1]] } },
    });
    // @ts-expect-error: ACL has no column nope
    void nb.setMonitor('ACL', { where: [['nope', '==', 'x']] });
  });

  it('reject values of the wrong type, enum values the model lacks and wrong functions', () => {
    connectDatabase({
      remotes,
      model: NB,
      // @ts-expect-error: priority is a number
      tables: { ACL: { where: [['priority', '==', 'high']] } },
    });
    // @ts-expect-error: not an ACL action
    void nb.setMonitor('ACL', { where: [['action', '==', 'permit']] });
    // @ts-expect-error: external_ids is a map, not a string
    void nb.setMonitor('Logical_Switch_Port', { where: [['external_ids', '==', 'pod']] });
    // @ts-expect-error: < applies to numbers only
    void nb.setMonitor('ACL', { where: [['match', '<', 'ip4']] });
    // @ts-expect-error: includes applies to sets and maps only
    void nb.setMonitor('ACL', { where: [['priority', 'includes', 1]] });
    // @ts-expect-error: a wire-form UUID is not the typed one
    void nb.setMonitor('Logical_Switch', { where: [['_uuid', '==', ['uuid', 'x']]] });
  });
});
