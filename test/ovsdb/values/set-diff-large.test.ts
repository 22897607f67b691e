/**
 * `applySetDiff` on large sets, where it searches by bisection and copies
 * a private twin of the (frozen) set: the result must equal the symmetric
 * difference in canonical order, whatever the set's size, element type and
 * history, and must never change its input.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Atom } from '../../../src/ovsdb/schema/schema-types.js';
import { compareAtoms } from '../../../src/ovsdb/values/order.js';
import { applySetDiff, EMPTY_SET } from '../../../src/ovsdb/values/set-map.js';

/** The symmetric difference of `current` and `diff`, sorted (the reference). */
function reference(current: readonly Atom[], diff: readonly Atom[]): Atom[] {
  const out = new Set<Atom>(current);
  for (const x of new Set(diff)) {
    if (out.has(x)) out.delete(x);
    else out.add(x);
  }
  return [...out].sort(compareAtoms);
}

const sortedUnique = <T extends Atom>(arb: fc.Arbitrary<T>, min: number, max: number) =>
  fc
    .uniqueArray(arb, { minLength: min, maxLength: max })
    .map((xs) => Object.freeze([...xs].sort(compareAtoms)) as readonly Atom[]);

describe('applySetDiff on large sets', () => {
  it('inserts one element at its place in a 5,000-element frozen set, many times over', () => {
    const ids = Array.from(
      { length: 5000 },
      (_, i) => `k${String((i * 7919) % 5000).padStart(5, '0')}`,
    );
    let current: readonly Atom[] = EMPTY_SET;
    ids.forEach((id, i) => {
      const before = current;
      const snapshot = i % 500 === 0 ? [...before] : undefined;
      current = Object.freeze(applySetDiff(before, [id]) as Atom[]);
      if (snapshot) expect(before).toEqual(snapshot); // the input is untouched
    });
    expect(current).toEqual([...ids].sort());
    // Removing them again, in another order, empties the set.
    for (const id of [...ids].reverse())
      current = Object.freeze(applySetDiff(current, [id]) as Atom[]);
    expect(current).toBe(EMPTY_SET);
  });

  it('matches the reference for strings, through a chain of diffs', () => {
    fc.assert(
      fc.property(
        sortedUnique(fc.string({ maxLength: 6 }), 0, 600),
        fc.array(fc.array(fc.string({ maxLength: 6 }), { maxLength: 40 }), { maxLength: 6 }),
        fc.boolean(),
        (start, diffs, freeze) => {
          let current = start;
          let expected: Atom[] = [...start];
          for (const diff of diffs) {
            const unique = [...new Set(diff)];
            const next = applySetDiff(current, unique);
            expected = reference(expected, unique);
            expect([...next]).toEqual(expected);
            current = freeze ? Object.freeze(next as Atom[]) : next;
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('matches the reference for integers (numeric, not textual, order)', () => {
    fc.assert(
      fc.property(
        sortedUnique(fc.integer({ min: -5000, max: 5000 }), 16, 400),
        fc.uniqueArray(fc.integer({ min: -5000, max: 5000 }), { maxLength: 50 }),
        (start, diff) => {
          expect([...applySetDiff(start, diff)]).toEqual(reference(start, diff));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps a set that is not in canonical order correct (no bisection on it)', () => {
    const unsorted = Object.freeze(Array.from({ length: 300 }, (_, i) => `x${299 - i}`));
    const next = applySetDiff(unsorted, ['x5', 'new']);
    expect(next).toHaveLength(300);
    expect(next).not.toContain('x5');
    expect(next).toContain('new');
  });
  it('gives the right set when an older set is diffed again after a later diff took its twin', () => {
    const ids = Array.from({ length: 600 }, (_, i) => `k${String(i * 2).padStart(5, '0')}`);
    let current: readonly Atom[] = Object.freeze([...ids]);
    // Build up a history whose sets have twins, keeping each one.
    const history: (readonly Atom[])[] = [current];
    for (let i = 0; i < 5; i++) {
      current = Object.freeze(
        applySetDiff(current, [`k${String(i * 2 + 1).padStart(5, '0')}`]) as Atom[],
      );
      history.push(current);
    }
    // Every set of the history, diffed again (once with an insert, once
    // with a removal and an insert), matches the reference and stays as it was.
    for (const old of history) {
      const copy = [...old];
      const added = applySetDiff(old, ['k00003x']);
      expect(added).toEqual(reference(copy, ['k00003x']));
      const mixed = applySetDiff(old, ['k00000', 'k99999']);
      expect(mixed).toEqual(reference(copy, ['k00000', 'k99999']));
      expect(old).toEqual(copy);
    }
    // The newest set, diffed twice from the same value, gives the same result both times.
    const a = applySetDiff(current, ['k00005x']);
    const b = applySetDiff(current, ['k00005x']);
    expect(b).toEqual(a);
    expect(current).toEqual(history[history.length - 1]);
  });
});
