/**
 * `connectNb`, the way into the Northbound database, against a real
 * ovsdb-server: it resolves with the DSL bound to an in-sync client it owns
 * (transactions, dry runs, `show`, the typed transactor, client indexes) and
 * closes that client; a client that cannot get in sync rejects the connect
 * and is closed.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientClosedError } from '../../src/client/errors.js';
import { connectNb, lsAdd, lspAdd, Nb, NotFoundError } from '../../src/nb/index.js';
import { newUuid } from '../../src/ovsdb/values/uuid.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';

const NB_SCHEMA_PATH = 'schema/ovn-nb-7.18.0.ovsschema';
const BACKOFF = { initialDelayMs: 20, maxDelayMs: 200 } as const;

/** What `p` rejects with (fails when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('connectNb against ovsdb-server', () => {
  let server: OvsdbServerHandle;
  const open: Nb[] = [];
  beforeAll(async () => {
    requireOvsdbServer();
    server = await startOvsdbServer({ schemaPath: NB_SCHEMA_PATH });
  });
  afterAll(async () => {
    for (const nb of open) await nb.close();
    await server?.stop();
  });

  it('resolves in sync with the DSL bound to its client', async () => {
    const nb = await connectNb({ remotes: server.unixRemote, backoff: BACKOFF });
    open.push(nb);
    expect(nb).toBeInstanceOf(Nb);
    expect(nb).toBeInstanceOf(Nb);
    expect(nb.client.status.state).toBe('connected');
    expect(nb.model.name).toBe('OVN_Northbound');

    const { value: port, attempts } = await nb.transact((t) => {
      const sw = lsAdd(t, 'sw0');
      return lspAdd(t, sw, 'sw0-p1', { addresses: ['00:00:00:00:00:01 10.0.0.1'] });
    });
    expect(attempts).toBe(1);
    // Read-your-writes through the client the handle owns.
    expect(nb.client.get('Logical_Switch_Port', port)?.name).toBe('sw0-p1');
    expect(nb.client.find('Logical_Switch', (s) => s.name === 'sw0')?.ports).toEqual([port]);
    expect(nb.show()).toContain('switch');
    expect(nb.show()).toContain('port sw0-p1');

    // The DSL's errors come through.
    const e = await rejection(nb.transact((t) => lspAdd(t, 'no-such-switch', 'p')));
    expect(e).toBeInstanceOf(NotFoundError);

    // A dry run sends nothing.
    const { ops } = nb.dryRun((t) => lsAdd(t, 'sw-dry'));
    expect(ops.some((o) => o.op === 'insert' && o.table === 'Logical_Switch')).toBe(true);
    expect(nb.client.find('Logical_Switch', (s) => s.name === 'sw-dry')).toBeUndefined();

    // The typed transactor over the same client.
    const { value: lr } = await nb.client.transact((tx) =>
      tx.insert('Logical_Router', { name: 'lr0' }),
    );
    expect(nb.client.get('Logical_Router', lr)?.name).toBe('lr0');
  });

  it('passes the client options through: typed client indexes', async () => {
    const nb = await connectNb({
      remotes: [server.unixRemote],
      backoff: BACKOFF,
      indexes: { Logical_Switch_Port: { pod: { column: 'external_ids', key: 'pod' } } },
    });
    open.push(nb);
    await nb.transact((t) =>
      lspAdd(t, lsAdd(t, 'sw-ix'), 'web-1', { externalIds: { pod: 'ns/web-1' } }),
    );
    expect(nb.client.byIndex('Logical_Switch_Port', 'pod', 'ns/web-1').map((p) => p.name)).toEqual([
      'web-1',
    ]);
    // @ts-expect-error there is no such index
    expect(() => nb.client.byIndex('Logical_Switch_Port', 'nope', 'x')).toThrow();
  });

  it('close() closes the client it owns', async () => {
    const nb = await connectNb({ remotes: server.unixRemote, backoff: BACKOFF });
    await nb.close();
    expect(nb.client.status.state).toBe('closed');
    const e = await rejection(nb.transact((t) => lsAdd(t, 'late')));
    expect(e).toBeInstanceOf(ClientClosedError);
  });

  it('rejects, with the client closed, when it cannot get in sync', async () => {
    const e = await rejection(
      connectNb({
        remotes: `unix:${server.dir}/no-such-${newUuid()}.sock`,
        backoff: { initialDelayMs: 5, maxDelayMs: 10, maxRetries: 2 },
      }),
    );
    expect(e).toBeInstanceOf(ClientClosedError);
  });
});
