/**
 * `plan.render()` names rows by natural key, on the real ovsdb-server and on
 * the ovnkit-server program: a new child by its key and its parent's, the
 * children of a new parent and the rows a reference column names by their
 * keys (a child in its own parent's column without the parent again), and
 * a UUID only for a row whose table has no key. The rendered plans are
 * compared with the snapshots in `__snapshots__/` (the same for both
 * servers); `JSON.stringify(plan)` carries the same keys beside the UUIDs.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/client/index.js';
import { NB, type NBTables } from '../../../src/nb/generated/index.js';
import { nbDesiredState } from '../../../src/nb/index.js';
import type { Uuid } from '../../../src/ovsdb/values/uuid.js';
import {
  applyDesired,
  type DesiredState,
  keyOf,
  type PlanJson,
  planDesired,
} from '../../../src/transactions/index.js';
import { connectNb, KINDS, type NbServer, settle, startNbServer } from './helpers.js';

interface Version {
  readonly ports: readonly string[];
  readonly group: readonly string[];
  readonly shared: readonly string[];
  readonly dhcp: readonly string[];
  readonly nat: boolean;
  readonly log: boolean;
}

describe.each(KINDS)('rendered plans on %s', (kind) => {
  let server: NbServer;
  let client: DatabaseClient<NBTables>;
  let dns: string;
  beforeAll(async () => {
    server = await startNbServer(kind);
    client = await connectNb(server.remote);
    // A row of a table without a key (DNS), made by another writer and referenced by UUID.
    const [r] = (await client.transact([
      { op: 'insert', table: 'DNS', row: { records: ['map', [['web', '10.60.1.11']]] } },
    ])) as [{ uuid: [string, string] }];
    dns = r.uuid[1];
    await settle(client);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  const declare = (v: Version): DesiredState<NBTables> => {
    const d = nbDesiredState(NB, { owner: 'tenant-r' });
    const dhcp = d.add('DHCP_Options', {
      cidr: '10.60.1.0/24',
      options: { lease_time: '3600', router: '10.60.1.1' },
    });
    const sw = d.add('Logical_Switch', {
      name: 'r-web',
      other_config: { subnet: '10.60.1.0/24' },
      dns_records: [dns as Uuid<'DNS'>],
    });
    v.ports.forEach((p, i) => {
      d.add(
        'Logical_Switch_Port',
        {
          name: p,
          addresses: [`0a:00:00:00:02:0${i + 1} 10.60.1.1${i + 1}`],
          ...(v.dhcp.includes(p) ? { dhcpv4_options: dhcp } : {}),
        },
        { in: sw },
      );
    });
    const lsp = (n: string) => keyOf('Logical_Switch_Port', { name: n });
    const pg = d.add('Port_Group', { name: 'r_web', ports: v.group.map(lsp) });
    d.add(
      'ACL',
      {
        direction: 'to-lport',
        priority: 1000,
        match: 'outport == @r_web && tcp.dst == 443',
        action: 'allow-related',
        log: v.log,
      },
      { in: pg },
    );
    d.add('Port_Group', { name: 'r_all', ports: v.shared.map(lsp) }, { shared: true });
    const lr = d.add('Logical_Router', { name: 'r-router' });
    d.add(
      'Logical_Router_Port',
      { name: 'r-router-web', mac: '0a:00:00:00:02:ff', networks: ['10.60.1.1/24'] },
      { in: lr },
    );
    if (v.nat) {
      d.add(
        'NAT',
        { type: 'snat', external_ip: '172.16.60.10', logical_ip: '10.60.1.0/24' },
        { in: lr },
      );
    }
    return d;
  };
  const v1: Version = {
    ports: ['r-web-1', 'r-web-2'],
    group: ['r-web-1'],
    shared: ['r-web-1'],
    dhcp: [],
    nat: true,
    log: false,
  };
  const v2: Version = {
    ports: ['r-web-1', 'r-web-2', 'r-web-3'],
    group: ['r-web-2', 'r-web-3'],
    shared: ['r-web-2'],
    dhcp: ['r-web-1', 'r-web-3'],
    nat: false,
    log: true,
  };
  const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  /** The DNS row's UUID, the only one a plan shows, as a placeholder. */
  const masked = (text: string): string => text.replaceAll(dns, '<dns-uuid>');

  it('a first plan and a change, rendered by natural key', async () => {
    const first = planDesired(client, declare(v1));
    const text1 = first.render();
    await expect(masked(text1)).toMatchFileSnapshot('./__snapshots__/render-create.txt');
    // Only the DNS row, which has no key, is named by UUID.
    expect(text1.match(UUID)).toEqual([dns]);
    await applyDesired(client, declare(v1));

    const second = planDesired(client, declare(v2));
    const text2 = second.render();
    await expect(text2).toMatchFileSnapshot('./__snapshots__/render-change.txt');
    expect(text2.match(UUID)).toBeNull();

    // The JSON form keeps the UUIDs, with the keys beside them.
    const json = JSON.parse(JSON.stringify(second)) as PlanJson;
    const created = json.changes.find((c) => c.key === 'Logical_Switch_Port{name="r-web-3"}');
    const dhcpUuid = [...client.rows('DHCP_Options')].find((r) => r.cidr === '10.60.1.0/24')!._uuid;
    const switchUuid = client.find('Logical_Switch', (r) => r.name === 'r-web')!._uuid;
    expect(created).toMatchObject({
      action: 'create',
      parent: {
        table: 'Logical_Switch',
        uuid: switchUuid,
        column: 'ports',
        key: 'Logical_Switch{name="r-web"}',
      },
      row: { dhcpv4_options: dhcpUuid },
      refs: { dhcpv4_options: { [dhcpUuid]: 'DHCP_Options{cidr="10.60.1.0/24"}' } },
    });
    const sw = json.changes.find((c) => c.key === 'Logical_Switch{name="r-web"}');
    expect(sw).toMatchObject({
      action: 'update',
      columns: [
        {
          column: 'ports',
          how: 'mutate',
          insert: [created!.uuid],
          refs: { [created!.uuid]: 'Logical_Switch_Port{name="r-web-3"}' },
        },
      ],
    });
    const p1 = client.lookup('Logical_Switch_Port', { name: 'r-web-1' })!._uuid;
    const shared = json.changes.find((c) => c.key === 'Port_Group{name="r_all"}');
    expect(shared?.action === 'update' && shared.shared).toBe(true);
    const ports = shared?.action === 'update' ? shared.columns[0] : undefined;
    expect(ports?.remove).toEqual([p1]);
    expect(ports?.refs?.[p1]).toBe('Logical_Switch_Port{name="r-web-1"}');
  }, 60_000);
});
