/**
 * Differential corpus: OVN Northbound 7.18.0.
 * Each case runs on an empty database; see `types.ts`.
 * @module
 */

import type { CorpusCase } from './types.js';

/** Cases against the NB 7.18.0 schema. */
export const nb: readonly CorpusCase[] = [
  {
    name: 'switches, ports, ACLs, routers, routes, NAT, GC, name indexes, wait',
    txns: [
      [
        {
          op: 'insert',
          table: 'Logical_Switch',
          row: {
            name: 'ls0',
          },
          'uuid-name': 'ls',
        },
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: {
            name: 'p1',
            addresses: ['set', ['00:00:00:00:00:01 10.0.0.1']],
          },
          'uuid-name': 'p1',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['_uuid', '==', ['named-uuid', 'ls']]],
          mutations: [['ports', 'insert', ['set', [['named-uuid', 'p1']]]]],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: {
            name: 'orphan',
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Logical_Switch_Port',
          where: [],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: {
            name: 'p1',
          },
          'uuid-name': 'dup',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [],
          mutations: [['ports', 'insert', ['named-uuid', 'dup']]],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Logical_Switch_Port',
          where: [],
        },
      ],
      [
        {
          op: 'insert',
          table: 'ACL',
          row: {
            priority: 1001,
            direction: 'from-lport',
            match: 'ip4',
            action: 'allow',
          },
          'uuid-name': 'acl',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [],
          mutations: [['acls', 'insert', ['named-uuid', 'acl']]],
        },
      ],
      [
        {
          op: 'insert',
          table: 'ACL',
          row: {
            priority: 1001,
            direction: 'sideways',
            match: 'ip4',
            action: 'allow',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'ACL',
          row: {
            priority: 40000,
            direction: 'to-lport',
            match: 'ip4',
            action: 'allow',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'ACL',
          row: {
            priority: 1,
            direction: 'to-lport',
            match: 'ip4',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'ACL',
          where: [],
          row: {
            action: 'drop',
            log: true,
            severity: 'alert',
            name: 'n',
          },
        },
        {
          op: 'select',
          table: 'ACL',
          where: [],
          columns: ['action', 'log', 'severity', 'name'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Logical_Router',
          row: {
            name: 'lr0',
          },
          'uuid-name': 'lr',
        },
        {
          op: 'insert',
          table: 'Logical_Router_Port',
          row: {
            name: 'lrp0',
            mac: '00:00:00:00:00:aa',
            networks: ['set', ['10.0.0.254/24']],
          },
          'uuid-name': 'lrp',
        },
        {
          op: 'mutate',
          table: 'Logical_Router',
          where: [['_uuid', '==', ['named-uuid', 'lr']]],
          mutations: [['ports', 'insert', ['named-uuid', 'lrp']]],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Logical_Router_Static_Route',
          row: {
            ip_prefix: '0.0.0.0/0',
            nexthop: '10.0.0.1',
          },
          'uuid-name': 'r',
        },
        {
          op: 'mutate',
          table: 'Logical_Router',
          where: [],
          mutations: [['static_routes', 'insert', ['named-uuid', 'r']]],
        },
      ],
      [
        {
          op: 'insert',
          table: 'NAT',
          row: {
            type: 'snat',
            external_ip: '1.1.1.1',
            logical_ip: '10.0.0.0/24',
          },
          'uuid-name': 'n',
        },
        {
          op: 'mutate',
          table: 'Logical_Router',
          where: [],
          mutations: [['nat', 'insert', ['named-uuid', 'n']]],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Logical_Router',
          where: [],
        },
      ],
      [
        {
          op: 'select',
          table: 'Logical_Router_Port',
          where: [],
          columns: ['name'],
        },
        {
          op: 'select',
          table: 'NAT',
          where: [],
          columns: ['type'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Address_Set',
          row: {
            name: 'as1',
            addresses: ['set', ['10.0.0.1', '10.0.0.2']],
          },
        },
        {
          op: 'insert',
          table: 'Port_Group',
          row: {
            name: 'pg1',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Address_Set',
          row: {
            name: 'as1',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Port_Group',
          row: {
            name: 'pg1',
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Port_Group',
          where: [],
          mutations: [
            ['ports', 'insert', ['set', [['uuid', '11111111-1111-1111-1111-111111111111']]]],
          ],
        },
      ],
      [
        {
          op: 'insert',
          table: 'NB_Global',
          row: {},
        },
        {
          op: 'insert',
          table: 'NB_Global',
          row: {},
        },
      ],
      [
        {
          op: 'insert',
          table: 'NB_Global',
          row: {
            options: ['map', [['a', 'b']]],
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'NB_Global',
          where: [],
          mutations: [['nb_cfg', '+=', 1]],
        },
        {
          op: 'select',
          table: 'NB_Global',
          where: [],
          columns: ['nb_cfg', 'options'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Logical_Switch',
          row: {
            name: 'ls0',
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Logical_Switch',
          where: [['name', '==', 'ls0']],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Load_Balancer',
          row: {
            name: 'lb',
            vips: ['map', [['10.0.0.10:80', '10.0.0.2:80']]],
            protocol: 'tcp',
          },
          'uuid-name': 'lb',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [],
          mutations: [['load_balancer', 'insert', ['named-uuid', 'lb']]],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Load_Balancer',
          where: [],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Gateway_Chassis',
          row: {
            name: 'gc',
            chassis_name: 'ch',
            priority: 10,
          },
        },
      ],
      [
        {
          op: 'wait',
          table: 'Logical_Switch',
          where: [['name', '==', 'ls0']],
          columns: ['name'],
          until: '==',
          rows: [
            {
              name: 'ls0',
            },
            {
              name: 'ls0',
            },
          ],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Logical_Switch',
          where: [['name', '==', 'ls0']],
          columns: ['name'],
          until: '==',
          rows: [
            {
              name: 'ls0',
            },
          ],
          timeout: 0,
        },
      ],
    ],
  },
  {
    name: 'weak port-group refs, gateway and HA chassis GC, LB groups, meters, ranges, enums, blocking wait',
    txns: [
      [
        {
          op: 'insert',
          table: 'Logical_Switch',
          row: {
            name: 'ls',
          },
          'uuid-name': 'ls',
        },
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: {
            name: 'p1',
          },
          'uuid-name': 'p1',
        },
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: {
            name: 'p2',
          },
          'uuid-name': 'p2',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['_uuid', '==', ['named-uuid', 'ls']]],
          mutations: [
            [
              'ports',
              'insert',
              [
                'set',
                [
                  ['named-uuid', 'p1'],
                  ['named-uuid', 'p2'],
                ],
              ],
            ],
          ],
        },
        {
          op: 'insert',
          table: 'Port_Group',
          row: {
            name: 'pg',
            ports: [
              'set',
              [
                ['named-uuid', 'p1'],
                ['named-uuid', 'p2'],
              ],
            ],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Port_Group',
          where: [],
          columns: ['name', 'ports'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [],
          mutations: [['ports', 'delete', ['set', []]]],
        },
      ],
      [
        {
          op: 'select',
          table: 'Logical_Switch',
          where: [],
          columns: ['ports'],
        },
        {
          op: 'select',
          table: 'Logical_Switch_Port',
          where: [],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'update',
          table: 'Logical_Switch',
          where: [],
          row: {
            ports: ['set', []],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Port_Group',
          where: [],
          columns: ['ports'],
        },
        {
          op: 'select',
          table: 'Logical_Switch_Port',
          where: [],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: {
            name: 'p3',
            type: 'router',
            options: ['map', [['router-port', 'lrp']]],
          },
          'uuid-name': 'p3',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['name', '==', 'ls']],
          mutations: [['ports', 'insert', ['named-uuid', 'p3']]],
        },
        {
          op: 'mutate',
          table: 'Port_Group',
          where: [['name', '==', 'pg']],
          mutations: [['ports', 'insert', ['named-uuid', 'p3']]],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Logical_Switch',
          where: [],
        },
      ],
      [
        {
          op: 'select',
          table: 'Port_Group',
          where: [],
          columns: ['ports'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Gateway_Chassis',
          row: {
            name: 'gc1',
            chassis_name: 'c1',
            priority: 5,
          },
          'uuid-name': 'gc',
        },
        {
          op: 'insert',
          table: 'Logical_Router_Port',
          row: {
            name: 'lrp1',
            mac: '00:00:00:00:00:01',
            networks: ['set', ['192.168.0.1/24']],
            gateway_chassis: ['named-uuid', 'gc'],
          },
          'uuid-name': 'lrp',
        },
        {
          op: 'insert',
          table: 'Logical_Router',
          row: {
            name: 'lr',
            ports: ['named-uuid', 'lrp'],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Gateway_Chassis',
          where: [],
          columns: ['name', 'priority'],
        },
      ],
      [
        {
          op: 'update',
          table: 'Logical_Router_Port',
          where: [],
          row: {
            gateway_chassis: ['set', []],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Gateway_Chassis',
          where: [],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'HA_Chassis',
          row: {
            chassis_name: 'ch1',
            priority: 10,
          },
          'uuid-name': 'h1',
        },
        {
          op: 'insert',
          table: 'HA_Chassis_Group',
          row: {
            name: 'hg',
            ha_chassis: ['named-uuid', 'h1'],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'HA_Chassis_Group',
          row: {
            name: 'hg',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'HA_Chassis',
          row: {
            chassis_name: 'ch2',
            priority: 40000,
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'HA_Chassis',
          row: {
            chassis_name: 'ch2',
            priority: -1,
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'HA_Chassis',
          where: [],
          mutations: [['priority', '+=', 32767]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'HA_Chassis',
          where: [],
          mutations: [['priority', '*=', -1]],
        },
      ],
      [
        {
          op: 'delete',
          table: 'HA_Chassis_Group',
          where: [],
        },
      ],
      [
        {
          op: 'select',
          table: 'HA_Chassis',
          where: [],
          columns: ['chassis_name'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Load_Balancer',
          row: {
            name: 'lb1',
            protocol: 'udp',
            vips: ['map', [['1.1.1.1:53', '2.2.2.2:53']]],
          },
          'uuid-name': 'lb',
        },
        {
          op: 'insert',
          table: 'Load_Balancer_Group',
          row: {
            name: 'g',
            load_balancer: ['named-uuid', 'lb'],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Load_Balancer',
          row: {
            name: 'lb2',
            protocol: 'sctp2',
          },
        },
      ],
      [
        {
          op: 'delete',
          table: 'Load_Balancer',
          where: [],
        },
      ],
      [
        {
          op: 'select',
          table: 'Load_Balancer_Group',
          where: [],
          columns: ['name', 'load_balancer'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Meter',
          row: {
            name: 'm',
            unit: 'pktps',
            bands: ['named-uuid', 'b'],
          },
        },
        {
          op: 'insert',
          table: 'Meter_Band',
          row: {
            action: 'drop',
            rate: 10,
          },
          'uuid-name': 'b',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Meter_Band',
          row: {
            action: 'drop',
            rate: 0,
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Meter_Band',
          where: [],
          columns: ['rate', 'action'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Address_Set',
          row: {
            name: 'as',
            addresses: ['set', ['10.0.0.1']],
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Address_Set',
          where: [['name', '==', 'as']],
          mutations: [['addresses', 'insert', ['set', ['10.0.0.2', '10.0.0.1']]]],
        },
        {
          op: 'select',
          table: 'Address_Set',
          where: [],
          columns: ['addresses'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Address_Set',
          where: [['name', '==', 'as']],
          mutations: [['addresses', 'delete', '10.0.0.1']],
        },
        {
          op: 'select',
          table: 'Address_Set',
          where: [['addresses', 'includes', '10.0.0.2']],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'wait',
          table: 'Address_Set',
          where: [['name', '==', 'as']],
          columns: ['addresses'],
          until: '==',
          rows: [
            {
              addresses: '10.0.0.2',
            },
          ],
          timeout: 0,
        },
        {
          op: 'update',
          table: 'Address_Set',
          where: [['name', '==', 'as']],
          row: {
            external_ids: ['map', [['k', 'v']]],
          },
        },
      ],
      [
        {
          op: 'wait',
          table: 'Address_Set',
          where: [['name', '==', 'as']],
          columns: ['addresses'],
          until: '==',
          rows: [
            {
              addresses: '10.0.0.9',
            },
          ],
          timeout: 20,
        },
        {
          op: 'update',
          table: 'Address_Set',
          where: [],
          row: {
            external_ids: ['map', []],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'NB_Global',
          row: {
            name: 'g',
          },
        },
        {
          op: 'update',
          table: 'NB_Global',
          where: [],
          row: {
            nb_cfg: 5,
            options: ['map', [['mac_prefix', '0a:00:00']]],
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'NB_Global',
          where: [],
          mutations: [
            ['nb_cfg', '+=', 1],
            [
              'options',
              'insert',
              [
                'map',
                [
                  ['mac_prefix', 'other'],
                  ['svc_monitor_mac', 'x'],
                ],
              ],
            ],
          ],
        },
        {
          op: 'select',
          table: 'NB_Global',
          where: [],
          columns: ['nb_cfg', 'options'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Logical_Router_Policy',
          row: {
            priority: 100,
            match: 'ip4',
            action: 'reroute',
            nexthops: ['set', ['1.1.1.1']],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Logical_Router_Policy',
          row: {
            priority: 100,
            match: 'ip4',
            action: 'bounce',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'ACL',
          row: {
            priority: 1,
            direction: 'to-lport',
            match: 'ip',
            action: 'allow',
            severity: 'bad',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'ACL',
          row: {
            priority: 1,
            direction: 'to-lport',
            match: 'ip',
            action: 'allow',
            name: '0123456789012345678901234567890123456789012345678901234567890123',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'DHCP_Options',
          row: {
            cidr: '10.0.0.0/24',
            options: ['map', [['lease_time', '3600']]],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'DHCP_Options',
          where: [['options', 'includes', ['map', [['lease_time', '3600']]]]],
          columns: ['cidr'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Connection',
          row: {
            target: 'ptcp:6641',
            inactivity_probe: 0,
          },
        },
        {
          op: 'insert',
          table: 'SSL',
          row: {
            private_key: 'k',
            certificate: 'c',
            ca_cert: 'ca',
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Connection',
          where: [],
          columns: ['target', 'is_connected'],
        },
      ],
    ],
  },
];
