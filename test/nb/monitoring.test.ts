/**
 * The DSL over a database client that monitors only some tables, against
 * both servers: `NB_Global` is needed only for `wait`; an operation that
 * reads a table the client does not monitor fails at once with
 * `TableNotMonitoredError` naming it, before anything is sent (it does not
 * wait for rows that can never show up).
 */

import { describe, expect, it } from 'vitest';
import type { DatabaseClientOptions } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import {
  createNb,
  lsAdd,
  lsDel,
  lspAdd,
  lspDel,
  lsSetOtherConfig,
  NB,
  type NBTables,
  pgAdd,
  TableNotMonitoredError,
} from '../../src/nb/index.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import { NB_SCHEMA_7_18 } from './helpers/differential.js';

/** What `p` rejects with, and how long it took. */
async function failure(p: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const start = Date.now();
  try {
    await p;
  } catch (error) {
    return { error, ms: Date.now() - start };
  }
  throw new Error('expected a rejection');
}

describe.each(TARGETS.filter((t) => t.via === 'direct'))(
  'the DSL over a client monitoring some tables, against %s',
  (target) => {
    const fx = useTarget(target, { schemaPath: NB_SCHEMA_7_18 });

    async function client(tables?: DatabaseClientOptions<NBTables, never>['tables']) {
      const c = connectDatabase({
        remotes: [fx.remote],
        model: NB,
        ...(tables !== undefined ? { tables } : {}),
        backoff: { initialDelayMs: 20, maxDelayMs: 200 },
      });
      fx.onClose(() => c.close());
      await c.ready;
      return c;
    }

    it('without NB_Global, operations on the monitored tables run at once', async () => {
      const c = await client({ Logical_Switch: true });
      const nb = createNb(c);
      const start = Date.now();
      await nb.transact((t) => lsDel(t, 'no-such-switch', { ifExists: true }));
      const { value: sw, ops } = await nb.transact((t) => lsAdd(t, 'mon-sw0'));
      expect(ops.map((o) => ('table' in o ? o.table : o.op))).toEqual([
        'Logical_Switch',
        'Logical_Switch',
      ]);
      await nb.transact((t) => lsSetOtherConfig(t, 'mon-sw0', { subnet: '10.0.0.0/24' }));
      expect(c.get('Logical_Switch', sw)?.other_config).toEqual({ subnet: '10.0.0.0/24' });
      await nb.transact((t) => lsDel(t, 'mon-sw0'));
      expect(Date.now() - start).toBeLessThan(3000);
    });

    it('an operation that reads an unmonitored table fails at once, naming it; nothing is sent', async () => {
      const c = await client({ Logical_Switch: true });
      const full = await client();
      const nb = createNb(c);
      await nb.transact((t) => lsAdd(t, 'mon-sw1'));
      const { error, ms } = await failure(nb.transact((t) => lspAdd(t, 'mon-sw1', 'mon-p1')));
      expect(error).toBeInstanceOf(TableNotMonitoredError);
      expect(error).toMatchObject({ table: 'Logical_Switch_Port', reader: 'Northbound' });
      expect((error as Error).message).toMatch(
        /table Logical_Switch_Port is read, but the database client does not monitor it/,
      );
      expect(ms).toBeLessThan(1000);
      await full.transactRaw([]);
      expect([...full.rows('Logical_Switch_Port')].map((p) => p.name)).not.toContain('mon-p1');
      await nb.transact((t) => lsDel(t, 'mon-sw1'));
    });

    it('wait needs NB_Global: without it, a clear error naming it, before anything is sent', async () => {
      const c = await client({ Logical_Switch: true });
      const nb = createNb(c);
      const { error, ms } = await failure(
        nb.transact((t) => lsAdd(t, 'mon-sw2'), { wait: 'sb', waitTimeoutMs: 10_000 }),
      );
      expect(error).toBeInstanceOf(TableNotMonitoredError);
      expect(error).toMatchObject({ table: 'NB_Global' });
      expect(ms).toBeLessThan(1000);
      expect([...c.rows('Logical_Switch')].map((s) => s.name)).not.toContain('mon-sw2');
      const { error: waitError } = await failure(nb.waitFor('sb', { timeoutMs: 10_000 }));
      expect(waitError).toMatchObject({ name: 'TableNotMonitoredError', table: 'NB_Global' });
    });

    it('lspDel reads the port groups only when the client monitors them', async () => {
      const full = createNb(await client());
      await full.transact((t) => {
        lsAdd(t, 'mon-sw3');
        lspAdd(t, 'mon-sw3', 'mon-p3');
        pgAdd(t, 'mon_pg3', { ports: ['mon-p3'] });
      });
      const c = await client({ Logical_Switch: true, Logical_Switch_Port: true });
      const nb = createNb(c);
      const { ops } = await nb.transact((t) => lspDel(t, 'mon-p3'));
      expect(ops.map((o) => `${o.op} ${'table' in o ? o.table : ''}`)).toEqual([
        'mutate Logical_Switch',
      ]);
      // The server drops the weak reference from the port group.
      await full.client.transact(() => undefined);
      const pg = [...full.client.rows('Port_Group')].find((p) => p.name === 'mon_pg3');
      expect(pg?.ports).toEqual([]);
      await full.transact((t) => lsDel(t, 'mon-sw3'));
    });
  },
);
