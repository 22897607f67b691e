/**
 * Nothing recurses on what a peer sends. Every function that walks a value
 * from the wire (the text forms ovsdb-server writes, the JSON hash of
 * monitor ids, echoed ids and params, JSON text out, error previews, the
 * lossless parser) is fed a value nested 100,000 levels deep, far beyond any
 * call stack: each must give its result, not a RangeError. And data, not
 * only nesting: a chain of 20,000 rows that only the previous one keeps
 * alive is garbage-collected at once when its head goes, by `ovnkit-server`
 * as a process as by ovsdb-server.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { ovsJsonText } from '../../src/ovsdb/values/ovs-text.js';
import { preview } from '../../src/ovsdb/wire/json.js';
import { stringifyJson } from '../../src/ovsdb/wire/json-stringify.js';
import { depthExceededAt, parseJsonLossless } from '../../src/ovsdb/wire/json-text.js';
import { syntaxError } from '../../src/server/engine/op-error.js';
import { jsonHash } from '../../src/server/engine/ovs-hmap.js';
import { echoJson } from '../../src/server/rpc/echo-json.js';
import { jsonKey } from '../../src/server/rpc/session.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { type FileServer, type Kind, startFileServer } from '../server/file-servers.js';

const DEEP = 100_000;

/** `[[…[leaf]…]]`, `n` arrays deep, built without recursion. */
function deepArray(n: number, leaf: unknown): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

/** `{"a":{"a":…leaf…}}`, `n` objects deep. */
function deepObject(n: number, leaf: unknown): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

const arrayText = (n: number, leaf: string): string => `${'['.repeat(n)}${leaf}${']'.repeat(n)}`;
const objectText = (n: number, leaf: string): string =>
  `${'{"a":'.repeat(n)}${leaf}${'}'.repeat(n)}`;

describe('walkers of wire values, on a value nested 100,000 deep', () => {
  it('ovsJsonText writes it (arrays, objects, reals as %.15g)', () => {
    expect(ovsJsonText(deepArray(DEEP, 0.1))).toBe(arrayText(DEEP, '0.1'));
    expect(ovsJsonText(deepObject(DEEP, 'x'))).toBe(objectText(DEEP, '"x"'));
  });

  it('jsonKey (the server’s key for ids) and jsonHash (OVS’s json_hash) take it', () => {
    expect(jsonKey(deepArray(DEEP, 1))).toBe(arrayText(DEEP, '1'));
    const h = jsonHash(deepArray(DEEP, 1));
    expect(typeof h).toBe('number');
    // The same fold as for a shallow value: one more level, one more hash step.
    expect(jsonHash(deepArray(DEEP, 1))).toBe(h);
    expect(jsonHash(deepArray(DEEP, 1))).not.toBe(jsonHash(deepArray(DEEP - 1, 1)));
    expect(typeof jsonHash(deepObject(DEEP, 'x'))).toBe('number');
  });

  it('echoJson copies it, reals rounded as ovsdb-server sends them', () => {
    const v = echoJson(deepArray(DEEP, 0.12345678901234568));
    expect(stringifyJson(v)).toBe(arrayText(DEEP, '0.123456789012346'));
  });

  it('stringifyJson and preview write it (bigints exact)', () => {
    expect(stringifyJson(deepArray(DEEP, 2n ** 62n))).toBe(arrayText(DEEP, String(2n ** 62n)));
    expect(preview(deepObject(DEEP, 1), 20)).toBe('{"a":{"a":{"a":{"...');
  });

  it('a syntax error about it carries its text, as ovsdb-server’s "syntax" member', () => {
    expect(syntaxError(deepArray(DEEP, 'x'), undefined, 'bad').syntax).toBe(arrayText(DEEP, '"x"'));
  });

  it('the lossless parser and the depth scan read it when allowed to, and refuse it by default', () => {
    const text = arrayText(DEEP, '1234567890123456789');
    expect(depthExceededAt(text, DEEP)).toBe(-1);
    expect(depthExceededAt(text, 1000)).toBe(1000);
    let v = parseJsonLossless(text, DEEP);
    for (let i = 0; i < DEEP; i++) v = (v as unknown[])[0];
    expect(v).toBe(1234567890123456789n);
    expect(() => parseJsonLossless(text)).toThrow(/Nesting deeper than 1000 levels/);
  });
});

describe('a chain of 20,000 rows kept alive one by one', () => {
  const N = 20_000;
  const SCHEMA = {
    name: 'Chain',
    version: '1.0.0',
    tables: {
      Head: {
        columns: { first: { type: { key: { type: 'uuid', refTable: 'Link' }, min: 0, max: 1 } } },
        isRoot: true,
      },
      Link: {
        columns: { next: { type: { key: { type: 'uuid', refTable: 'Link' }, min: 0, max: 1 } } },
      },
    },
  };
  let dir: string;
  const servers: FileServer[] = [];

  beforeAll(async () => {
    const tools = requireOvsdbServer(true);
    dir = await mkdtemp(join(tmpdir(), 'ovnkit-hostile-chain-'));
    await writeFile(join(dir, 'chain.ovsschema'), JSON.stringify(SCHEMA));
    for (const kind of ['ovnkit-server', 'ovsdb-server'] as Kind[]) {
      const sub = join(dir, kind);
      await runTool('mkdir', ['-p', sub]);
      const db = join(sub, 'chain.db');
      await runTool(tools.ovsdbTool, ['create', db, join(dir, 'chain.ovsschema')]);
      servers.push(await startFileServer(kind, sub, db));
    }
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await s.kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('deleting the head collects the whole chain, on both servers', async () => {
    const ops: object[] = [];
    for (let i = 0; i < N; i++) {
      ops.push({
        op: 'insert',
        table: 'Link',
        'uuid-name': `l${i}`,
        row: i + 1 < N ? { next: ['named-uuid', `l${i + 1}`] } : {},
      });
    }
    ops.push({ op: 'insert', table: 'Head', row: { first: ['named-uuid', 'l0'] } });
    for (const s of servers) {
      const conn = await connect(`unix:${s.sock}`);
      try {
        const made = await conn.transact('Chain', ops as never, { timeoutMs: 60_000 });
        expect(made).toHaveLength(N + 1);
        const deleted = await conn.transact('Chain', [{ op: 'delete', table: 'Head', where: [] }], {
          timeoutMs: 60_000,
        });
        expect(deleted).toEqual([{ count: 1 }]);
        const left = await conn.transact('Chain', [
          { op: 'select', table: 'Link', where: [], columns: ['_uuid'] },
        ]);
        expect(left[0]?.rows).toEqual([]);
      } finally {
        conn.close();
      }
      expect(s.child.exitCode).toBeNull();
    }
  }, 60_000);
});
