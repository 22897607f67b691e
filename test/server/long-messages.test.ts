/**
 * Messages longer than the longest string (about 512 MiB) on the
 * connections that carry a message as one string: an in-process connection
 * that cannot be given one is closed with an error naming the limit (its
 * client reconnects and resumes), while the server and its other sessions
 * go on. (Socket connections get such a message in pieces: see
 * `test/hostile/large-commit.test.ts`.)
 */

import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { MAX_STRING_UNITS } from '../../src/ovsdb/wire/json-stringify.js';
import { createServer } from '../../src/server/index.js';

const SCHEMA = parseSchema({
  name: 'Long',
  version: '1.0.0',
  tables: { T: { columns: { pad: { type: 'string' } }, isRoot: true } },
});

/** A raw in-process client: sends requests, keeps what arrives, and how it closed. */
function rawClient(server: Awaited<ReturnType<typeof createServer>>) {
  const t = server.connectInProcess();
  const received: string[] = [];
  let closed: Error | undefined | null = null;
  t.attach({
    data: () => undefined,
    message: (text) => received.push(text.length > 200 ? `${text.slice(0, 200)}…` : text),
    drain: () => undefined,
    close: (e) => {
      closed = e;
    },
  });
  return {
    send: (m: unknown) => t.write(JSON.stringify(m)),
    received,
    closed: () => closed,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

describe('a message longer than one string on an in-process connection', () => {
  it('closes that connection with an error naming the limit; the commit and other sessions go on', async () => {
    const server = await createServer({ databases: [SCHEMA] });
    try {
      const watcher = rawClient(server);
      const writer = rawClient(server);
      watcher.send({ method: 'monitor_cond', params: ['Long', 'm', { T: {} }], id: 1 });
      // 9 rows, each of 60 Mi characters: an update of 540 Mi characters.
      writer.send({
        method: 'transact',
        params: [
          'Long',
          ...Array.from({ length: 9 }, () => ({ op: 'insert', table: 'T', row: {} })),
        ],
        id: 2,
      });
      await settle();
      const pad = 'p'.repeat(60 * 1024 * 1024);
      writer.send({
        method: 'transact',
        params: ['Long', { op: 'update', table: 'T', where: [], row: { pad } }],
        id: 3,
      });
      await settle();
      expect(writer.received.at(-1)).toBe('{"id":3,"result":[{"count":9}],"error":null}');
      const closed = watcher.closed();
      expect(closed).toBeInstanceOf(Error);
      expect((closed as Error).message).toMatch(
        new RegExp(`more than ${MAX_STRING_UNITS} UTF-16 units .* cannot be delivered`),
      );
      expect(writer.closed()).toBeNull();
      // The commit stands, and a new session works.
      expect(server.database('Long')?.tables.get('T')?.rows.size).toBe(9);
      const next = rawClient(server);
      next.send({
        method: 'transact',
        params: ['Long', { op: 'select', table: 'T', where: [['pad', '==', 'x']] }],
        id: 4,
      });
      await settle();
      expect(next.received).toEqual(['{"id":4,"result":[{"rows":[]}],"error":null}']);
    } finally {
      await server.close();
    }
  }, 60_000);
});
