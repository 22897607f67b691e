/**
 * set_db_change_aware against both servers (a real ovsdb-server, whose
 * databases `ovs-appctl` removes and adds, and the in-memory server, whose
 * handle emulates those commands): when a database is removed, a
 * db-change-aware session gets `monitor_canceled` and stays connected, while
 * any other session with a monitor on it is disconnected.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_METHODS, collectEvents, DB, nextEvent, useServer } from '../../helpers/server.js';
import { SERVER_KINDS } from '../../helpers/servers.js';

describe.each(SERVER_KINDS)('against %s', (kind) => {
  const fixture = useServer({}, kind);

  afterEach(async () => {
    // Put the database back for the next test.
    const dbs = await fixture.server.appctl('ovsdb-server/list-dbs');
    if (!dbs.split('\n').includes(DB)) {
      await fixture.server.appctl('ovsdb-server/add-db', fixture.server.dbPath);
    }
  });

  describe.each(CLIENT_METHODS)('set_db_change_aware over %s', (method) => {
    it('an aware session gets monitor_canceled and stays; an unaware one is disconnected', async () => {
      const aware = await fixture.connect(method);
      const unaware = await fixture.connect(method);
      await aware.setDbChangeAware(true);
      await aware.monitorCond(DB, ['aware', method], { Item: { columns: ['n'] } });
      await unaware.monitorCond(DB, 'unaware', { Item: { columns: ['n'] } });
      // _Server tells every session which databases exist.
      await aware.monitor('_Server', 'dbs', { Database: { columns: ['name'] } });
      const serverUpdates = collectEvents(aware, 'update');

      const logOffset = (await fixture.server.readLog()).length;
      const canceled = nextEvent(aware, 'monitorCanceled');
      const unawareClosed = nextEvent(unaware, 'close');
      await fixture.server.appctl('ovsdb-server/remove-db', DB);

      expect(await canceled).toEqual([['aware', method]]);
      const [error] = await unawareClosed;
      expect(error).toBeInstanceOf(Error);
      expect(unaware.isClosed).toBe(true);
      expect((await fixture.server.readLog()).slice(logOffset)).toMatch(
        /disconnecting \(removing Test database by user request\)/,
      );

      expect(aware.isClosed).toBe(false);
      expect(await aware.listDbs()).toEqual(['_Server']);
      expect(serverUpdates).toHaveLength(1);
      expect(JSON.stringify(serverUpdates[0])).toContain('"old":{"name":"Test"}');

      // The database comes back; the aware session sees it through _Server and can use it.
      const added = nextEvent(aware, 'update');
      await fixture.server.appctl('ovsdb-server/add-db', fixture.server.dbPath);
      const [, updates] = await added;
      expect(JSON.stringify(updates)).toContain('"new":{"name":"Test"}');
      expect([...(await aware.listDbs())].sort()).toEqual([DB, '_Server']);
    });

    it('set_db_change_aware(false) turns it off again', async () => {
      const conn = await fixture.connect(method);
      await conn.setDbChangeAware(true);
      await conn.setDbChangeAware(false);
      await conn.monitorCond(DB, 'm', { Item: { columns: ['n'] } });
      const closed = nextEvent(conn, 'close');
      await fixture.server.appctl('ovsdb-server/remove-db', DB);
      const [error] = await closed;
      expect(error).toBeInstanceOf(Error);
    });
  });
});
