/**
 * Monitor method fallback: `monitor_cond_since` → `monitor_cond` → `monitor`
 * when the server answers "unknown method" (a proxy in front of the server
 * plays the older server), with updates, events and resyncs working on each
 * method; against every target (both servers, and the real one over `ws:`
 * through a bridge in front of the proxy).
 */

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { DB, TEST_SCHEMA, unique } from '../helpers/server.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import { rawConnection, TEST_MODEL, type TestTables, until } from './helpers/fixtures.js';
import { OvsdbProxy } from './helpers/proxy.js';

describe.each(TARGETS)('monitor fallback against %s', (target) => {
  const fx = useTarget(target, { schema: TEST_SCHEMA });
  let writer: OvsdbConnection;
  const proxies: OvsdbProxy[] = [];
  const clients: DatabaseClient<TestTables>[] = [];
  beforeAll(async () => {
    // A raw writer, straight to the server's socket.
    writer = await rawConnection(fx.unixRemote);
    fx.onClose(() => writer.close());
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    for (const p of proxies.splice(0)) await p.close();
  });

  describe.each([
    { refuse: ['monitor_cond_since'], method: 'monitor_cond' },
    { refuse: ['monitor_cond_since', 'monitor_cond'], method: 'monitor' },
  ] as const)('when the server does not know $refuse', ({ refuse, method }) => {
    it(`falls back to ${method}, applies updates, and resyncs without an insert storm`, async () => {
      const base = unique('base');
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: base, n: 1, tags: ['set', ['a', 'b']] } },
      ] as Operation[]);
      const proxy = await OvsdbProxy.start(fx.unixRemote);
      proxies.push(proxy);
      proxy.refuseMethods(refuse);
      const c = connectDatabase({
        // The proxy plays the older server; a ws target reaches it through a bridge.
        remotes: await fx.via(proxy.remote),
        model: TEST_MODEL,
        backoff: { initialDelayMs: 20, maxDelayMs: 100 },
      });
      clients.push(c);
      await c.ready;
      expect(c.stats.lastSync[0]).toMatchObject({ method, found: false });
      // The client asked with a refused method once, then kept to what works.
      expect(proxy.refused.size).toBeGreaterThan(0);
      for (const [m, times] of proxy.refused) {
        expect(refuse).toContain(m);
        expect(times).toBe(1);
      }
      expect(proxy.methods).toContain(method);
      expect(c.lookup('Item', { name: base })?.tags).toEqual(['a', 'b']);

      const seen: string[] = [];
      c.on('Item', 'insert', (r) => {
        seen.push(`insert ${r.name}`);
      });
      c.on('Item', 'update', (r, o) => {
        seen.push(`update ${r.name} ${o.tags.join(',')}→${r.tags.join(',')} n=${o.n}→${r.n}`);
      });
      const name = unique('fb');
      await c.transactRaw([{ op: 'insert', table: 'Item', row: { name, n: 2 } } as Operation]);
      expect(c.lookup('Item', { name })?.n).toBe(2); // read-your-writes holds on every method
      await writer.transact(DB, [
        {
          op: 'mutate',
          table: 'Item',
          where: [['name', '==', base]],
          mutations: [['tags', 'insert', ['set', ['c']]]],
        },
      ] as Operation[]);
      await until(() => c.lookup('Item', { name: base })?.tags.length === 3, 5000, 'the update');
      await c.drained();
      expect(seen).toEqual([`insert ${name}`, `update ${base} a,b→a,b,c n=1→1`]);

      // A reconnection re-dumps, with events only for what changed meanwhile.
      seen.length = 0;
      proxy.cut();
      await until(() => c.status.state !== 'connected', 5000, 'the disconnection');
      await writer.transact(DB, [
        { op: 'update', table: 'Item', where: [['name', '==', name]], row: { n: 3 } },
      ] as Operation[]);
      proxy.restore();
      await until(() => c.stats.connects === 2, 10_000, 'the resync');
      await c.drained();
      expect(c.stats.lastSync[0]).toMatchObject({
        method,
        replaced: { inserted: 0, updated: 1, deleted: 0 },
      });
      expect(seen).toEqual([`update ${name} → n=2→3`]); // no insert storm
      expect(c.lookup('Item', { name })?.n).toBe(3);
    });
  });
});
