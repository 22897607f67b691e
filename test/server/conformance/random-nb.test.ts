/**
 * Conformance, randomized, on the OVN Northbound 7.18.0 schema: fast-check
 * generates sequences of the transactions OVN clients send (switches, ports
 * with addresses and port security, port groups, ACLs, address sets,
 * routers with ports, routes and NAT, load balancers, NB_Global), with
 * garbage collection of unreferenced ports and ACLs, weak references, the
 * name indexes, `maxRows` and out-of-range values. Each sequence runs over
 * the wire on a real ovsdb-server and on the in-memory server with six
 * monitors open; results, notifications and final dumps must be equal.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NB_SCHEMA_PATH } from '../harness.js';
import { ConformancePair, loadSchemaFile } from './harness.js';
import { nbMonitors } from './monitors.js';

let pair: ConformancePair;

beforeAll(async () => {
  pair = await ConformancePair.start(NB_SCHEMA_PATH, nbMonitors(loadSchemaFile(NB_SCHEMA_PATH)));
});

afterAll(async () => {
  await pair?.stop();
});

const sw = fc.constantFrom('sw0', 'sw1', 'sw2');
const lsp = fc.constantFrom('lsp0', 'lsp1', 'lsp2', 'p0');
const pg = fc.constantFrom('pg0', 'pg1', 'pg_other');
const as = fc.constantFrom('as0', 'as1');
const lr = fc.constantFrom('lr0', 'lr1');
const lrp = fc.constantFrom('lrp0', 'lrp1');
const strSet = (values: readonly string[], max: number) =>
  fc.uniqueArray(fc.constantFrom(...values), { maxLength: max }).map((xs) => ['set', xs]);
const strMap = (keys: readonly string[], values: readonly string[]) =>
  fc
    .uniqueArray(fc.tuple(fc.constantFrom(...keys), fc.constantFrom(...values)), {
      maxLength: 3,
      selector: (p) => p[0],
    })
    .map((ps) => ['map', ps]);
const addresses = strSet(['00:00:00:00:00:01 10.0.0.1', 'dynamic', 'router', 'unknown'], 2);
const portSecurity = strSet(['00:00:00:00:00:01 10.0.0.1', '00:00:00:00:00:02'], 2);
const externalIds = strMap(['pod', 'ns', 'owner'], ['a', 'b', '']);
const options = strMap(['requested-chassis', 'router-port', 'mcast_snoop'], ['true', 'x', 'lrp0']);

const lspColumns = fc.oneof(
  fc.record({ addresses }),
  fc.record({ port_security: portSecurity }),
  fc.record({ external_ids: externalIds }),
  fc.record({ options }),
  fc.record({ enabled: fc.oneof(fc.boolean(), fc.constant(['set', []])) }),
  fc.record({ up: fc.boolean() }),
  fc.record({ type: fc.constantFrom('', 'router', 'localnet') }),
  fc.record({ tag_request: fc.oneof(fc.constantFrom(0, 7, 4095, 4096), fc.constant(['set', []])) }),
);

const acl = (k: number) =>
  fc
    .record({
      priority: fc.constantFrom(0, 1000, 1001, 32767, 32768),
      direction: fc.constantFrom('from-lport', 'to-lport', 'sideways'),
      action: fc.constantFrom('allow', 'drop', 'allow-related', 'permit'),
      match: fc.constantFrom('ip4', 'outport == "lsp0"'),
    })
    .map((row) => ({ op: 'insert', table: 'ACL', row, 'uuid-name': `acl${k}` }));

/** One operation group; `k` makes uuid-names unique within a transaction. */
const op = (k: number): fc.Arbitrary<unknown[]> => {
  const groups: fc.Arbitrary<unknown[]>[] = [
    fc
      .tuple(sw, fc.option(strMap(['mcast_snoop', 'subnet'], ['true', '10.0.0.0/24'])))
      .map(([name, oc]) => [
        {
          op: 'insert',
          table: 'Logical_Switch',
          row: oc === null ? { name } : { name, other_config: oc },
        },
      ]),
    fc
      .tuple(lsp, sw, fc.array(lspColumns, { maxLength: 2 }), fc.boolean(), fc.option(pg))
      .map(([name, s, cols, link, group]) => {
        const ops: unknown[] = [
          {
            op: 'insert',
            table: 'Logical_Switch_Port',
            row: Object.assign({ name }, ...cols),
            'uuid-name': `p${k}`,
          },
        ];
        if (link) {
          ops.push({
            op: 'mutate',
            table: 'Logical_Switch',
            where: [['name', '==', s]],
            mutations: [['ports', 'insert', ['named-uuid', `p${k}`]]],
          });
        }
        if (group !== null) {
          ops.push({
            op: 'mutate',
            table: 'Port_Group',
            where: [['name', '==', group]],
            mutations: [['ports', 'insert', ['named-uuid', `p${k}`]]],
          });
        }
        return ops;
      }),
    fc.tuple(lsp, fc.array(lspColumns, { minLength: 1, maxLength: 2 })).map(([name, cols]) => [
      {
        op: 'update',
        table: 'Logical_Switch_Port',
        where: [['name', '==', name]],
        row: Object.assign({}, ...cols),
      },
    ]),
    fc
      .tuple(
        lsp,
        fc.oneof(
          fc
            .tuple(fc.constantFrom('insert', 'delete'), externalIds)
            .map(([m, v]) => ['external_ids', m, v]),
          fc
            .tuple(fc.constantFrom('insert', 'delete'), addresses)
            .map(([m, v]) => ['addresses', m, v]),
          fc.constantFrom('pod', 'ns').map((key) => ['external_ids', 'delete', ['set', [key]]]),
          fc.constantFrom(1, 5000).map((n) => ['tag_request', '+=', n]),
        ),
      )
      .map(([name, m]) => [
        {
          op: 'mutate',
          table: 'Logical_Switch_Port',
          where: [['name', '==', name]],
          mutations: [m],
        },
      ]),
    lsp.map((name) => [
      { op: 'delete', table: 'Logical_Switch_Port', where: [['name', '==', name]] },
    ]),
    sw.map((name) => [
      {
        op: 'update',
        table: 'Logical_Switch',
        where: [['name', '==', name]],
        row: { ports: ['set', []] },
      },
    ]),
    sw.map((name) => [{ op: 'delete', table: 'Logical_Switch', where: [['name', '==', name]] }]),
    fc
      .tuple(pg, externalIds)
      .map(([name, ext]) => [
        { op: 'insert', table: 'Port_Group', row: { name, external_ids: ext } },
      ]),
    pg.map((name) => [{ op: 'delete', table: 'Port_Group', where: [['name', '==', name]] }]),
    fc.tuple(acl(k), fc.boolean(), sw, pg).map(([insert, onSwitch, s, g]) => [
      insert,
      onSwitch
        ? {
            op: 'mutate',
            table: 'Logical_Switch',
            where: [['name', '==', s]],
            mutations: [['acls', 'insert', ['named-uuid', `acl${k}`]]],
          }
        : {
            op: 'mutate',
            table: 'Port_Group',
            where: [['name', '==', g]],
            mutations: [['acls', 'insert', ['named-uuid', `acl${k}`]]],
          },
    ]),
    fc
      .tuple(as, strSet(['10.0.0.1', '10.0.0.2', '::1'], 3))
      .map(([name, a]) => [{ op: 'insert', table: 'Address_Set', row: { name, addresses: a } }]),
    fc
      .tuple(as, fc.constantFrom('insert', 'delete'), strSet(['10.0.0.1', '10.0.0.3'], 2))
      .map(([name, m, a]) => [
        {
          op: 'mutate',
          table: 'Address_Set',
          where: [['name', '==', name]],
          mutations: [['addresses', m, a]],
        },
      ]),
    as.map((name) => [{ op: 'delete', table: 'Address_Set', where: [['name', '==', name]] }]),
    fc
      .tuple(fc.option(options), fc.boolean())
      .map(([o, bump]) =>
        bump
          ? [{ op: 'mutate', table: 'NB_Global', where: [], mutations: [['nb_cfg', '+=', 1]] }]
          : [{ op: 'insert', table: 'NB_Global', row: o === null ? {} : { options: o } }],
      ),
    fc
      .tuple(
        lr,
        lrp,
        fc.constantFrom('00:00:00:00:01:01', ''),
        fc.boolean(),
        fc.option(fc.boolean()),
      )
      .map(([router, port, mac, withRoute, enabled]) => {
        const ops: unknown[] = [
          {
            op: 'insert',
            table: 'Logical_Router',
            row: enabled === null ? { name: router } : { name: router, enabled },
            'uuid-name': `lr${k}`,
          },
          {
            op: 'insert',
            table: 'Logical_Router_Port',
            row: { name: port, mac, networks: ['set', ['10.0.0.1/24']] },
            'uuid-name': `lrp${k}`,
          },
          {
            op: 'mutate',
            table: 'Logical_Router',
            where: [['_uuid', '==', ['named-uuid', `lr${k}`]]],
            mutations: [['ports', 'insert', ['named-uuid', `lrp${k}`]]],
          },
        ];
        if (withRoute) {
          ops.push(
            {
              op: 'insert',
              table: 'Logical_Router_Static_Route',
              row: { ip_prefix: '0.0.0.0/0', nexthop: '10.0.0.254' },
              'uuid-name': `rt${k}`,
            },
            {
              op: 'insert',
              table: 'NAT',
              row: { type: 'snat', external_ip: '1.1.1.1', logical_ip: '10.0.0.0/24' },
              'uuid-name': `nat${k}`,
            },
            {
              op: 'mutate',
              table: 'Logical_Router',
              where: [['_uuid', '==', ['named-uuid', `lr${k}`]]],
              mutations: [
                ['static_routes', 'insert', ['named-uuid', `rt${k}`]],
                ['nat', 'insert', ['named-uuid', `nat${k}`]],
              ],
            },
          );
        }
        return ops;
      }),
    lr.map((name) => [{ op: 'delete', table: 'Logical_Router', where: [['name', '==', name]] }]),
    fc
      .tuple(fc.constantFrom('lb0', 'lb1'), fc.constantFrom('tcp', 'udp', 'icmp'), sw)
      .map(([name, protocol, s]) => [
        {
          op: 'insert',
          table: 'Load_Balancer',
          row: { name, protocol, vips: ['map', [['10.0.0.10:80', '10.0.0.1:8080']]] },
          'uuid-name': `lb${k}`,
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['name', '==', s]],
          mutations: [['load_balancer', 'insert', ['named-uuid', `lb${k}`]]],
        },
      ]),
    fc
      .constantFrom('lb0', 'lb1')
      .map((name) => [{ op: 'delete', table: 'Load_Balancer', where: [['name', '==', name]] }]),
    fc.tuple(lsp, fc.constantFrom('', 'router')).map(([name, type]) => [
      {
        op: 'select',
        table: 'Logical_Switch_Port',
        where: [
          ['name', '!=', name],
          ['type', '==', type],
        ],
        columns: ['name', 'addresses', 'enabled'],
      },
    ]),
    fc.tuple(sw, fc.constantFrom('==', '!=')).map(([name, until]) => [
      {
        op: 'wait',
        table: 'Logical_Switch',
        where: [['name', '==', name]],
        columns: ['name'],
        until,
        rows: [{ name }],
        timeout: 0,
      },
    ]),
  ];
  return fc.oneof(...groups);
};

const txn = fc
  .array(fc.nat(), { minLength: 1, maxLength: 4 })
  .chain((ks) => fc.tuple(...ks.map((_, k) => op(k))))
  .map((parts) => parts.flat());

/** Number of sequences; raise with `OVNKIT_FC_RUNS` for a longer hunt. */
const RUNS = Number(process.env.OVNKIT_FC_RUNS ?? 100);

it(
  'random NB transaction sequences give the same results, notifications and dumps',
  async () => {
    let compared = 0;
    let notified = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(txn, { minLength: 1, maxLength: 10 }), async (txns) => {
        const initial = await pair.startCase(true);
        expect(initial.memory).toEqual(initial.real);
        for (const t of txns) {
          const { real, memory } = await pair.step(t);
          expect(memory, JSON.stringify(t)).toEqual(real);
          expect(real.afterReply).toEqual([]);
          compared++;
          notified += Object.values(real.notifications).flat().length;
        }
        const dumps = await pair.dumps();
        expect(dumps.memory).toEqual(dumps.real);
      }),
      {
        numRuns: RUNS,
        ...(process.env.OVNKIT_FC_SEED ? { seed: Number(process.env.OVNKIT_FC_SEED) } : {}),
      },
    );
    expect(compared).toBeGreaterThan(RUNS);
    expect(notified).toBeGreaterThan(RUNS);
  },
  30_000 + RUNS * 300,
);
