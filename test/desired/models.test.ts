/**
 * Desired state over other models: an older NB model (6.1.0, on a 6.1.0
 * database) with the NB keys, and the Southbound schema with nothing but the
 * keys its own indexes supply (Chassis by name, Encap by type and IP), on a
 * real ovsdb-server and on the in-memory server.
 */

import { afterAll, describe, expect, it } from 'vitest';
import { SB, type SBTables } from '../../examples/sb-agent/model/index.js';
import { connectDatabase, type DatabaseClient } from '../../src/client/index.js';
import { applyDesired, DesiredState, planDesired } from '../../src/desired/index.js';
import { nbDesiredState } from '../../src/nb/index.js';
import type { TableMap } from '../../src/ovsdb/schema/model.js';
import { SERVER_KINDS, startTestServer, type TestServerHandle } from '../helpers/servers.js';
import { NB as NB61, type NBTables as NB61Tables } from '../nb/fixtures/models/nb-6.1.0/index.js';

const NB61_SCHEMA = new URL('../fixtures/schemas/ovn-nb-6.1.0.ovsschema', import.meta.url).pathname;
const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';
const BACKOFF = { initialDelayMs: 20, maxDelayMs: 200 } as const;

describe.each(SERVER_KINDS)('desired state over other models on %s', (kind) => {
  const servers: TestServerHandle[] = [];
  const clients: DatabaseClient<TableMap>[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close();
    for (const s of servers) await s.stop();
  });

  it('NB 6.1.0: a router with routes and a switch with ACLs, then a change, then nothing', async () => {
    const server = await startTestServer(kind, { schemaPath: NB61_SCHEMA });
    servers.push(server);
    const client = connectDatabase({ remotes: server.unixRemote, model: NB61, backoff: BACKOFF });
    clients.push(client as unknown as DatabaseClient<TableMap>);
    await client.whenSynced();
    const mk = (prio: number): DesiredState<NB61Tables> => {
      const d = nbDesiredState(NB61, { owner: 'old' });
      const sw = d.add('Logical_Switch', { name: 'sw' });
      d.add(
        'Logical_Switch_Port',
        { name: 'p', addresses: ['00:00:00:00:00:05 10.5.0.5'] },
        { in: sw },
      );
      d.add(
        'ACL',
        { direction: 'from-lport', priority: prio, match: 'ip4', action: 'drop' },
        { in: sw },
      );
      const lr = d.add('Logical_Router', { name: 'lr' });
      d.add(
        'Logical_Router_Static_Route',
        { ip_prefix: '10.6.0.0/16', nexthop: '10.5.0.254' },
        { in: lr },
      );
      return d;
    };
    const first = await applyDesired(client, mk(100));
    expect(first.operations).toBe(5);
    expect((await applyDesired(client, mk(100))).outcome).toBe('unchanged');
    // The ACL's priority is part of its key: another priority is another ACL.
    const plan = planDesired(client, mk(200));
    expect(plan.counts).toEqual({ creates: 1, updates: 1, deletes: 1 });
    await applyDesired(client, mk(200));
    const sw = client.find('Logical_Switch', (r) => r.name === 'sw')!;
    expect(sw.acls.map((u) => client.get('ACL', u)?.priority)).toEqual([200]);
    expect(client.count('ACL')).toBe(1);
  });

  it('Southbound: Chassis and Encap keyed by their schema indexes only', async () => {
    const server = await startTestServer(kind, { schemaPath: SB_SCHEMA });
    servers.push(server);
    const client = connectDatabase({ remotes: server.unixRemote, model: SB, backoff: BACKOFF });
    clients.push(client as unknown as DatabaseClient<TableMap>);
    await client.whenSynced();
    const mk = (ip: string): DesiredState<SBTables> => {
      const d = new DesiredState(SB, { owner: 'agent' });
      const ch = d.add('Chassis', { name: 'hv1', hostname: 'hv1.example' });
      d.add(
        'Encap',
        { type: 'geneve', ip, chassis_name: 'hv1', options: { csum: 'true' } },
        { in: ch },
      );
      return d;
    };
    await applyDesired(client, mk('192.0.2.10'));
    const ch = client.lookup('Chassis', { name: 'hv1' })!;
    expect(ch.external_ids).toEqual({ 'ovnkit-owner': 'agent' });
    expect(client.get('Encap', ch.encaps[0]!)?.ip).toBe('192.0.2.10');
    expect((await applyDesired(client, mk('192.0.2.10'))).outcome).toBe('unchanged');
    const r = await applyDesired(client, mk('192.0.2.11'));
    // A new Encap (its key changed): one insert, one mutate of the chassis' encaps (link + unlink).
    expect(r.operations).toBe(2);
    expect(client.count('Encap')).toBe(1);
    const ch2 = client.lookup('Chassis', { name: 'hv1' })!;
    expect(client.get('Encap', ch2.encaps[0]!)?.ip).toBe('192.0.2.11');
  });
});
