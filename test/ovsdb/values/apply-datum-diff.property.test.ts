/**
 * `applyDatumDiff` (a record's column diff applied to a datum, as replaying
 * a database file does it) against the way it was done before, a binary
 * search per diff key and the runs of the old datum between them copied;
 * and the change it records against `addedRemoved` computed by comparing
 * the two datums: sets and maps of strings, integers (64-bit ones too) and
 * reals (`0` and `-0` compare equal), small and large (a long set of UUIDs
 * is searched by the value of their first hex digits: some share them), diffs
 * adding, removing and (maps) replacing elements, one after another.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Atom } from '../../../src/ovsdb/schema/schema-types.js';
import { compareAtoms, lowerBound } from '../../../src/ovsdb/values/order.js';
import {
  addedRemoved,
  applyDatumDiff,
  type Datum,
  sortDatum,
} from '../../../src/ovsdb/values/sorted-datum.js';

const SEED = 20_261_205;
const runs = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });

/** The diff applied as records.ts applied it before `applyDatumDiff`. */
function reference(old: Datum, diff: Datum, isMap: boolean): Datum {
  const ok = old.keys;
  const ov = old.values ?? [];
  const dk = diff.keys;
  const dv = diff.values ?? [];
  const keys: Atom[] = [];
  const values: Atom[] = [];
  let next = 0;
  for (let j = 0; j < dk.length; j++) {
    const key = dk[j] as Atom;
    const at = lowerBound(ok, key, next);
    keys.push(...ok.slice(next, at));
    if (isMap) values.push(...ov.slice(next, at));
    if (at < ok.length && compareAtoms(ok[at] as Atom, key) === 0) {
      if (isMap && compareAtoms(ov[at] as Atom, dv[j] as Atom) !== 0) {
        keys.push(key);
        values.push(dv[j] as Atom);
      }
      next = at + 1;
    } else {
      keys.push(key);
      if (isMap) values.push(dv[j] as Atom);
      next = at;
    }
  }
  keys.push(...ok.slice(next));
  if (isMap) values.push(...ov.slice(next));
  return isMap ? { keys, values } : { keys };
}

/** A sorted datum of distinct keys from `keys` (and `values`, for a map). */
function datumOf(keys: Atom[], values: Atom[] | undefined): Datum {
  const seen = new Set<string>();
  const k: Atom[] = [];
  const v: Atom[] = [];
  keys.forEach((x, i) => {
    const id = `${typeof x}:${String(x)}`;
    if (seen.has(id) || (typeof x === 'number' && seen.has(`number:${String(-x)}`))) return;
    seen.add(id);
    k.push(x);
    if (values !== undefined) v.push(values[i % values.length] as Atom);
  });
  const d = sortDatum(k, values === undefined ? undefined : v);
  if (d === undefined) throw new Error('duplicate');
  return d;
}

/** A copy that `addedRemoved` knows nothing about: it compares the two datums. */
function unknown(d: Datum): Datum {
  return d.values === undefined
    ? { keys: [...d.keys] }
    : { keys: [...d.keys], values: [...d.values] };
}

const kinds: Record<string, fc.Arbitrary<Atom>> = {
  string: fc.oneof(fc.string({ maxLength: 3 }), fc.uuid()),
  integer: fc.oneof(
    fc.integer({ min: -30, max: 30 }),
    fc.bigInt({ min: 2n ** 60n, max: 2n ** 60n + 5n }),
  ),
  real: fc.constantFrom(0, -0, 0.5, -1.5, 2, 1e300, -1e-300),
};

describe('applyDatumDiff', () => {
  for (const [kind, atom] of Object.entries(kinds)) {
    for (const isMap of [false, true]) {
      it(`is the diff applied as before, and records its change (${kind} ${isMap ? 'map' : 'set'}s)`, () => {
        fc.assert(
          fc.property(
            fc.array(atom, { maxLength: 60 }),
            fc.array(atom, { maxLength: 12 }),
            fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 5 }),
            fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 5 }),
            fc.nat(),
            (oldKeys, diffKeys, oldValues, diffValues, pick) => {
              const old = datumOf(oldKeys, isMap ? oldValues : undefined);
              // Some diff keys taken from the old datum, so that removals and replacements happen.
              const taken = old.keys.filter((_, i) => (i + pick) % 3 === 0);
              const diff = datumOf([...taken, ...diffKeys], isMap ? diffValues : undefined);
              const next = applyDatumDiff(old, diff, isMap);
              expect(next).toEqual(reference(old, diff, isMap));
              expect(Object.is(next, old)).toBe(false);
              expect(addedRemoved(old, next)).toEqual(addedRemoved(unknown(old), unknown(next)));
            },
          ),
          runs(300),
        );
      });
    }
  }

  /** UUIDs, some sharing their first 12 hex digits (the prefix the search of a long set compares). */
  const uuidish = fc.oneof(
    { weight: 4, arbitrary: fc.uuid() },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('0123abcd-ef01', 'ffffffff-ffff', '00000000-0000'), fc.uuid())
        .map(([head, u]) => head + u.slice(13)),
    },
  );

  it('applies diffs one after another to a long set of UUIDs as before (prefix search)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(uuidish, { minLength: 1024, maxLength: 2500 }),
        fc.array(fc.tuple(fc.uniqueArray(uuidish, { maxLength: 40 }), fc.nat()), {
          minLength: 1,
          maxLength: 4,
        }),
        (all, diffs) => {
          let old = datumOf(all, undefined);
          for (const [extra, pick] of diffs) {
            const taken = old.keys.filter((_, i) => (i + pick) % 97 === 0);
            const diff = datumOf([...extra, ...taken], undefined);
            const next = applyDatumDiff(old, diff, false);
            expect(next).toEqual(reference(old, diff, false));
            expect(addedRemoved(old, next)).toEqual(addedRemoved(unknown(old), unknown(next)));
            old = next;
          }
        },
      ),
      runs(40),
    );
  });

  it('applies diffs to long maps keyed by UUIDs, and to long sets holding other strings too', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(uuidish, { minLength: 1024, maxLength: 1500 }),
        fc.uniqueArray(fc.oneof(uuidish, fc.string({ maxLength: 14 })), { maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.boolean(),
        (all, extra, vals, pick, isMap) => {
          const old = datumOf(all, isMap ? vals : undefined);
          const taken = old.keys.filter((_, i) => (i + pick) % 89 === 0);
          const diff = datumOf([...extra, ...taken], isMap ? [...vals].reverse() : undefined);
          const next = applyDatumDiff(old, diff, isMap);
          expect(next).toEqual(reference(old, diff, isMap));
          expect(addedRemoved(old, next)).toEqual(addedRemoved(unknown(old), unknown(next)));
          // The same diff on a long set of other strings (no prefixes) and on a mixed one.
          const mixed = datumOf([...all.slice(0, 1100), 'not-a-uuid', 'Z'], undefined);
          const d2 = datumOf([...extra, 'not-a-uuid'], undefined);
          expect(applyDatumDiff(mixed, d2, false)).toEqual(reference(mixed, d2, false));
        },
      ),
      runs(40),
    );
  });
});
