/**
 * The monitors the conformance suite keeps open while it replays
 * transactions: on the writer, every table and column with `monitor`,
 * `monitor_cond` and `monitor_cond_since`; on a second session, monitors
 * with `where` clauses (ORed; some read columns the monitor does not send),
 * column subsets and `select` flags.
 *
 * Each observer monitor has its own set of columns: ovsdb-server 3.1 crashes
 * when two `monitor_cond` monitors with identical columns differ in a `where`
 * that reads an unmonitored column, so the suite never asks that of it.
 * @module
 */

import type { DatabaseSchema } from '../../../src/ovsdb/schema/schema-types.js';
import { type MonitorSpec, writerMonitors } from './harness.js';

/** Monitors for the small test schema (`test/fixtures/test.ovsschema`). */
export function testSchemaMonitors(schema: DatabaseSchema): MonitorSpec[] {
  return [
    ...writerMonitors(schema),
    {
      session: 'o',
      id: 'v2w',
      method: 'monitor_cond',
      requests: {
        Root: {
          columns: ['name', 'i', 'iset', 'smap', 'children', 'weak'],
          where: [
            ['i', '>', 5],
            ['e', '==', 'alpha'],
            ['iset', 'includes', 1],
          ],
        },
        Child: { columns: ['kids', 'owner'], where: [['name', '!=', 'b']] },
        Weak: {
          columns: ['name'],
          where: [
            ['name', '==', 'a'],
            ['name', '==', 'c'],
          ],
        },
        WeakReq: {},
        Limited: { columns: ['c'], where: [['a', '==', 1]] },
      },
    },
    {
      session: 'o',
      id: 'v1s',
      method: 'monitor',
      requests: {
        Root: [
          { columns: ['name', 'b'], select: { initial: false, modify: false } },
          { columns: ['r', 'sset', 'rset'], select: { delete: false } },
        ],
        Child: { columns: ['name', 'n'], select: { insert: false } },
        Limited: { columns: ['a', 'b'] },
      },
    },
    {
      session: 'o',
      id: 'v3w',
      method: 'monitor_cond_since',
      requests: {
        Root: {
          columns: ['name', 'e', 'u', 'oi', 'imap', 'bmap', 'weak_map', 'child_map'],
          where: [
            ['oi', '<', 3],
            ['name', '==', 'b'],
          ],
        },
        Weak: { columns: ['peer', 'name'], where: [false, ['name', '!=', 'a']] },
        Child: { columns: ['n', 'owner', 'name'], where: [['n', '>=', 0]] },
        Limited: {
          columns: ['a', 'b', 'c'],
          select: { modify: false },
          where: [false, false, true],
        },
      },
    },
  ];
}

/** Monitors for the OVN Northbound schema. */
export function nbMonitors(schema: DatabaseSchema): MonitorSpec[] {
  return [
    ...writerMonitors(schema),
    {
      session: 'o',
      id: 'v2w',
      method: 'monitor_cond',
      requests: {
        Logical_Switch: {
          columns: ['name', 'ports', 'other_config', 'acls'],
          where: [
            ['name', '==', 'sw0'],
            ['name', '==', 'sw1'],
            ['other_config', 'includes', ['map', [['mcast_snoop', 'true']]]],
          ],
        },
        Logical_Switch_Port: {
          columns: ['name', 'addresses', 'enabled', 'port_security'],
          where: [
            ['type', '==', 'router'],
            ['up', '==', true],
            ['name', '==', 'lsp1'],
          ],
        },
        ACL: { columns: ['priority', 'match', 'action'], where: [['priority', '>', 1000]] },
        Port_Group: { columns: ['name', 'ports', 'acls'], where: [['name', '!=', 'pg_other']] },
        Address_Set: { columns: ['addresses'], where: [['name', '==', 'as1']] },
        NB_Global: { columns: ['nb_cfg', 'options'] },
      },
    },
    {
      session: 'o',
      id: 'v1s',
      method: 'monitor',
      requests: {
        Logical_Switch: { columns: ['name'], select: { modify: false } },
        Logical_Switch_Port: [
          { columns: ['name'], select: { initial: false } },
          { columns: ['options', 'external_ids'], select: { insert: false } },
        ],
        Logical_Router: { columns: ['name', 'ports', 'static_routes', 'nat', 'policies'] },
        HA_Chassis_Group: { columns: ['ha_chassis', 'name'] },
      },
    },
    {
      session: 'o',
      id: 'v3w',
      method: 'monitor_cond_since',
      requests: {
        Logical_Router: {
          columns: ['name', 'enabled', 'load_balancer'],
          where: [['enabled', '!=', false]],
        },
        Logical_Switch_Port: {
          columns: ['name', 'type', 'up', 'dynamic_addresses', 'tag_request'],
          where: [['name', '!=', 'p0']],
        },
        Load_Balancer: {
          columns: ['name', 'vips', 'protocol'],
          where: [['protocol', '==', 'udp']],
        },
        Gateway_Chassis: { columns: ['chassis_name', 'priority'] },
      },
    },
  ];
}
