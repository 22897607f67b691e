/**
 * Choosing a server from its `_Server.Database` row, and the remote order.
 */

import { describe, expect, it } from 'vitest';
import {
  decodeServerDatabaseRow,
  judgeServer,
  remoteOrder,
  type ServerDatabaseRow,
  shuffle,
} from '../../src/client/cluster.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';

const clustered: ServerDatabaseRow = {
  name: 'OVN_Northbound',
  model: 'clustered',
  connected: true,
  leader: true,
  schema: '{}',
  cid: 'c1' as Uuid,
  sid: 's1' as Uuid,
  index: 10,
};
const choice = { leaderOnly: true, minIndex: 5 };

describe('judgeServer', () => {
  it('accepts a connected, up-to-date leader', () => {
    expect(judgeServer(clustered, choice, 'NB')).toEqual({ ok: true });
  });

  it.each([
    [{ schema: null }, 'not-joined'],
    [{ connected: false }, 'disconnected'],
    [{ leader: false }, 'not-leader'],
    [{ index: 4 }, 'stale'],
  ] as const)('skips %j as %s', (change, code) => {
    const v = judgeServer({ ...clustered, ...change }, choice, 'NB');
    expect(v.ok).toBe(false);
    expect(v.ok === false && v.code).toBe(code);
  });

  it('accepts a follower without leader-only, and standalone servers always', () => {
    expect(
      judgeServer({ ...clustered, leader: false }, { ...choice, leaderOnly: false }, 'NB').ok,
    ).toBe(true);
    expect(
      judgeServer({ ...clustered, model: 'standalone', leader: true, index: null }, choice, 'NB')
        .ok,
    ).toBe(true);
  });

  it('judges a relay as ovsdb-cs does: never under leader-only, never without its source', () => {
    const relay: ServerDatabaseRow = {
      ...clustered,
      model: 'relay',
      leader: false,
      cid: null,
      sid: null,
      index: null,
    };
    const any = { ...choice, leaderOnly: false };
    expect(judgeServer(relay, any, 'NB')).toEqual({ ok: true });
    expect(judgeServer(relay, choice, 'NB')).toEqual({
      ok: false,
      code: 'not-leader',
      reason: "the server is a relay of NB, never its cluster's leader",
    });
    // Even a row claiming leadership: a relay is no leader.
    expect(judgeServer({ ...relay, leader: true }, choice, 'NB')).toMatchObject({
      code: 'not-leader',
    });
    for (const c of [choice, any]) {
      expect(judgeServer({ ...relay, connected: false }, c, 'NB')).toEqual({
        ok: false,
        code: 'disconnected',
        reason: 'the relay is not connected to its source of NB',
      });
      expect(judgeServer({ ...relay, schema: null }, c, 'NB')).toMatchObject({
        code: 'not-joined',
        reason: 'database NB has no schema yet (the server has not reached its relay source)',
      });
    }
  });

  it('skips a server without the database or of another cluster', () => {
    expect(judgeServer(undefined, choice, 'NB')).toMatchObject({ ok: false, code: 'no-database' });
    expect(judgeServer(clustered, { ...choice, cid: 'other' }, 'NB')).toMatchObject({
      code: 'wrong-cluster',
    });
  });
});

describe('decodeServerDatabaseRow', () => {
  it('decodes a wire row and merges a modify over the previous row', () => {
    const row = decodeServerDatabaseRow({
      name: 'NB',
      model: 'clustered',
      connected: true,
      leader: true,
      schema: '{"name":"NB"}',
      cid: ['uuid', '00000000-0000-0000-0000-000000000001'],
      index: 7,
    } as never);
    expect(row).toMatchObject({ model: 'clustered', leader: true, index: 7, sid: null });
    const next = decodeServerDatabaseRow({ leader: false, index: 9 } as never, row);
    expect(next).toMatchObject({
      leader: false,
      index: 9,
      schema: '{"name":"NB"}',
      cid: '00000000-0000-0000-0000-000000000001',
    });
    expect(decodeServerDatabaseRow({ schema: ['set', []] } as never).schema).toBeNull();
  });
});

describe('remote order', () => {
  it('starts after the server just lost', () => {
    expect(remoteOrder(['a', 'b', 'c'], 'b', undefined)).toEqual(['c', 'a', 'b']);
    expect(remoteOrder(['a', 'b', 'c'], undefined, undefined)).toEqual(['a', 'b', 'c']);
    expect(remoteOrder(['a', 'b', 'c'], 'a', ['c', 'a', 'b'])).toEqual(['b', 'c', 'a']);
  });

  it('shuffle permutes', () => {
    const s = shuffle([1, 2, 3, 4, 5], () => 0);
    expect([...s].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(s).not.toEqual([1, 2, 3, 4, 5]);
  });
});
