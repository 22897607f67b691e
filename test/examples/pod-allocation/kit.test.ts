/**
 * The pod controller on the test kit (the worked example of
 * docs/testing.md): a fresh in-memory NB per test; NB checked against an
 * expected state written by name; a reconcile pass with nothing to do sends
 * nothing; a dropped connection and a transaction failed by the server are
 * survived (the controller's client resumes, the controller retries); and a
 * port left behind by a deleted pod (seeded, as a crashed controller would
 * leave it) is collected.
 */

import { afterEach, describe, expect, it } from 'vitest';
import {
  ANNOTATIONS as A,
  type Pod,
  portName,
} from '../../../examples/pod-allocation/controller/index.js';
import { NB } from '../../../src/nb/index.js';
import { type SeededDatabase, seedDatabase } from '../../../src/testing/index.js';
import '../../../src/testing/vitest.js';
import type { NBTables } from '../../../src/nb/index.js';
import { type Rig, rig } from './helpers.js';

const TOPOLOGY = { router: 'lr0', subnets: [{ name: 'pods', cidr: '10.50.0.0/24' }] };
const pod = (name: string): Pod => ({ namespace: 'ns', name, node: 'n1', annotations: {} });

let db: SeededDatabase<NBTables, unknown> | undefined;
let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  await db?.close();
});

/** The controller on a fresh NB, started. */
async function start(seed?: Parameters<typeof seedDatabase<NBTables>>[1]) {
  db = await seedDatabase(NB, seed);
  r = await rig({ remotes: db.remote('controller'), dial: db.dial }, TOPOLOGY);
  await r.controller.start();
  return { db, r };
}

/** The address a pod got: `<mac> <ip>`. */
function address(r: Rig, key: string): string {
  const a = r.controller.status.get(key)?.annotations ?? {};
  return `${a[A.macAddress]} ${a[A.ipAddress]}`;
}

describe('pod controller on the test kit', () => {
  it('gives a pod its port on its switch; a second pass sends nothing', async () => {
    const { db, r } = await start();
    r.source.add(pod('web'));
    await r.controller.idle();
    await expect(db).toHaveDataSubset({
      Logical_Switch: { pods: { name: 'pods', ports: ['web', 'to-router'] } },
      Logical_Switch_Port: {
        web: {
          name: portName('ns/web'),
          addresses: [address(r, 'ns/web')],
          external_ids: { pod: 'ns/web', vendor: 'ovnkit', ls: 'pods' },
        },
        'to-router': { type: 'router' },
      },
    });
    const sent = db.record({ session: 'controller' });
    await r.controller.gc();
    expect(sent).toHaveSentNothing();
  });

  it('survives a dropped connection and a transaction the server fails', async () => {
    const { db, r } = await start();
    const sent = db.record({ session: 'controller' });
    db.session('controller').drop();
    r.source.add(pod('db'));
    await r.controller.idle();
    db.session('controller').failNextTransaction({ error: 'I/O error', details: 'disk full' });
    r.source.add(pod('cache'));
    await r.controller.idle();
    expect(r.controller.status.get('ns/cache')?.state).toBe('ready');
    expect(sent.transactions.map((t) => t.outcome)).toEqual(['committed', 'failed', 'committed']);
    await expect(r.client).toHaveDataSubset({
      Logical_Switch_Port: [{ name: portName('ns/db') }, { name: portName('ns/cache') }],
    });
  });

  it('collects the port of a pod deleted while no controller ran', async () => {
    // As a crashed controller leaves NB: the switch, and the port of a pod that is gone.
    const { db, r } = await start({
      Logical_Switch: { pods: { name: 'pods', ports: ['gone'] } },
      Logical_Switch_Port: {
        gone: {
          name: portName('ns/gone'),
          addresses: ['0a:58:0a:32:00:09 10.50.0.9'],
          external_ids: { pod: 'ns/gone', vendor: 'ovnkit', ls: 'pods' },
        },
      },
    });
    await r.controller.idle();
    expect(r.controller.status.get('ns/gone')?.state).toBe('deleted');
    await expect(db).toHaveData({
      Logical_Switch: { pods: { ports: ['to-router'] } },
      Logical_Switch_Port: { 'to-router': { type: 'router' } },
    });
  });
});
