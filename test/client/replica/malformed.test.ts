/**
 * Row changes a server should never send, as pure functions
 * (`rows/codec.ts`) and through the replica: a row key that is
 * no UUID, a change or row that is no object, several kinds of change at
 * once, a `delete` that is not null, a value of the wrong type. Each is a
 * ProtocolError naming the table and the key, thrown before the replica
 * holds anything of the row.
 */

import { describe, expect, it } from 'vitest';
import { Replica } from '../../../src/client/replica/replica.js';
import { defineModel } from '../../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import { DatumError, ProtocolError } from '../../../src/ovsdb/wire/errors.js';
import { compileRowCodec, ReplicaInconsistencyError } from '../../../src/rows/codec.js';
import { applyRowUpdate, applyRowUpdate2, decodeDumpRow } from '../../../src/rows/row-changes.js';

const SCHEMA = parseSchema({
  name: 'M',
  version: '1.0.0',
  tables: { T: { columns: { s: { type: 'string' }, i: { type: 'integer' } } } },
});
const T = SCHEMA.tables['T']!;
const codec = compileRowCodec(T);
const U = '0a1b2c3d-0000-4000-8000-00000000000f';

/** The ProtocolError `f` throws. */
function protocolError(f: () => unknown): ProtocolError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    return e as ProtocolError;
  }
  throw new Error('no ProtocolError');
}

describe('update2 row changes that are not one', () => {
  it.each([
    ['a row key that is not a UUID', 'sw0', { insert: { s: 'x' } }, 'the row key is not a UUID'],
    ['an upper-case row key', U.toUpperCase(), { insert: {} }, 'the row key is not a UUID'],
    ['a change that is a string', U, 'x', 'a row change must be an object, got "x"'],
    ['a change that is an array', U, [1], 'a row change must be an object, got [1]'],
    ['a change that is null', U, null, 'a row change must be an object, got null'],
    ['an empty change', U, {}, 'needs one of "initial", "insert", "modify" or "delete", got {}'],
    [
      'only an unknown member',
      U,
      { upsert: {} },
      'needs one of "initial", "insert", "modify" or "delete", got {"upsert":{}}',
    ],
    ['two members', U, { insert: {}, modify: {} }, 'needs exactly one of'],
    ['an insert that is a number', U, { insert: 5 }, '"insert" must be an object, got 5'],
    ['an initial that is an array', U, { initial: [] }, '"initial" must be an object, got []'],
    ['a modify that is null', U, { modify: null }, '"modify" must be an object, got null'],
    ['a delete that is not null', U, { delete: {} }, '"delete" must be null, got {}'],
    ['a value of the wrong type', U, { insert: { i: 'seven' } }, 'T.i: expected an integer'],
  ])('%s', (_what, key, change, reason) => {
    const e = protocolError(() => applyRowUpdate2(codec, key, undefined, change as never));
    expect(e.message).toContain(`malformed update for table T, row ${JSON.stringify(key)}: `);
    expect(e.message).toContain(reason);
  });

  it('a value of the wrong type keeps the DatumError as the cause', () => {
    const e = protocolError(() =>
      applyRowUpdate2(codec, U, undefined, { insert: { s: 1 } } as never),
    );
    expect(e.cause).toBeInstanceOf(DatumError);
  });

  it('well-formed changes still apply, and inconsistencies stay ReplicaInconsistencyErrors', () => {
    const row = applyRowUpdate2(codec, U, undefined, { insert: { s: 'a' } });
    expect(row).toMatchObject({ _uuid: U, s: 'a', i: 0 });
    expect(applyRowUpdate2(codec, U, row, { modify: { i: 2 } })).toMatchObject({ s: 'a', i: 2 });
    expect(applyRowUpdate2(codec, U, row, { delete: null })).toBeUndefined();
    expect(() => applyRowUpdate2(codec, U, undefined, { delete: null })).toThrow(
      ReplicaInconsistencyError,
    );
  });
});

describe('plain update row changes that are not one', () => {
  it.each([
    ['a row key that is not a UUID', 'x', { new: {} }, 'the row key is not a UUID'],
    ['a change that is a string', U, 'x', 'a row change must be an object'],
    ['neither old nor new', U, {}, 'needs "old" or "new", got {}'],
    ['only another kind of member', U, { initial: {} }, 'needs "old" or "new", got {"initial":{}}'],
    ['a new row that is a string', U, { new: 'x' }, '"new" must be an object, got "x"'],
    ['an old row that is a number', U, { old: 1 }, '"old" must be an object, got 1'],
    ['a value of the wrong type', U, { new: { s: ['set', [1]] } }, 'T.s: expected a string'],
  ])('%s', (_what, key, change, reason) => {
    const e = protocolError(() => applyRowUpdate(codec, key, undefined, change as never));
    expect(e.message).toContain(`malformed update for table T, row ${JSON.stringify(key)}: `);
    expect(e.message).toContain(reason);
  });
});

describe('full dumps', () => {
  it('decodeDumpRow checks each entry as the changes are checked', () => {
    expect(decodeDumpRow(codec, U, { initial: { s: 'a' } }, 'update2')).toMatchObject({ s: 'a' });
    expect(decodeDumpRow(codec, U, { delete: null }, 'update2')).toBeUndefined();
    expect(decodeDumpRow(codec, U, { new: { s: 'b' } }, 'update')).toMatchObject({ s: 'b' });
    protocolError(() => decodeDumpRow(codec, 'x', { initial: {} }, 'update2'));
    protocolError(() => decodeDumpRow(codec, U, { initial: 'x' } as never, 'update2'));
    protocolError(() => decodeDumpRow(codec, U, { new: { i: 1.5 } }, 'update'));
  });

  it('the replica never holds a malformed row: a dump leaves nothing of itself, an update stops before it', () => {
    const { replica, feed } = Replica.withFeed(defineModel(SCHEMA));
    feed.configure('T', ['s', 'i']);
    const V = '0a1b2c3d-0000-4000-8000-0000000000aa';
    protocolError(() =>
      feed.replace(
        'T',
        { [U]: { initial: { s: 'ok' } }, 'not-a-uuid': { initial: {} } },
        'update2',
      ),
    );
    // Every row of a dump is decoded before any is held.
    expect(replica.count('T')).toBe(0);
    feed.replace('T', { [U]: { initial: { s: 'ok' } } }, 'update2');
    expect([...replica.rows('T')].map((r) => (r as Record<string, unknown>)['s'])).toEqual(['ok']);
    protocolError(() =>
      feed.applyUpdate2('T', {
        [V]: { insert: { s: 'first' } },
        'not-a-uuid': { insert: {} },
      } as never),
    );
    // An update applies its changes in order, up to the malformed one.
    expect(replica.get('T', V)).toMatchObject({ s: 'first' });
    feed.applyUpdate2('T', { [V]: { delete: null } });
    protocolError(() => feed.applyUpdate2('T', { [V]: { insert: { i: 'x' } } as never }));
    expect(replica.get('T', V)).toBeUndefined();
    protocolError(() => feed.applyUpdate('T', { [V]: { new: 'x' } as never }));
    expect(replica.get('T', V)).toBeUndefined();
    expect(replica.count('T')).toBe(1);
  });
});
