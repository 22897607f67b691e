/**
 * `contributionGuard`, the part of a shared row's column that an owner's
 * contribution was computed from: what it requires of a reference set, of
 * a set of strings, of a map, and when it compares the column whole.
 */

import { describe, expect, it } from 'vitest';
import { NB } from '../../../src/nb/generated/index.js';
import {
  contributionGuard,
  EXCLUDES_LIMIT,
} from '../../../src/transactions/desired/contributions.js';

const col = (table: string, column: string) => NB.schema.tables[table]!.columns[column]!;
const ports = col('Port_Group', 'ports');
const u = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('contributionGuard', () => {
  it("a reference set: the declared elements held, and the owner's others not held", () => {
    // Held: 1 (declared), 2 (the owner's, dropped), 9 (another owner's). Owned: 1..4. Declared: 1, 3.
    expect(
      contributionGuard(ports, [u(1), u(2), u(9)], [u(1), u(3)], [u(1), u(2), u(3), u(4)]),
    ).toEqual({
      includes: [u(1)],
      excludes: [u(4)],
    });
    // Nothing declared, nothing of the owner's missing: the owner's held rows are just deleted.
    expect(contributionGuard(ports, [u(1), u(9)], undefined, [u(1)])).toBeUndefined();
  });

  it('a set of strings: the declared elements held only', () => {
    const addresses = col('Address_Set', 'addresses');
    expect(
      contributionGuard(addresses, ['10.0.0.1', '10.0.0.9'], ['10.0.0.1', '10.0.0.2'], []),
    ).toEqual({
      includes: ['10.0.0.1'],
      excludes: [],
    });
    expect(contributionGuard(addresses, ['10.0.0.9'], ['10.0.0.2'], [])).toBeUndefined();
  });

  it('a map: the pairs of the declared keys the row holds, as it holds them', () => {
    const ext = col('Port_Group', 'external_ids');
    expect(contributionGuard(ext, { a: '1', b: 'theirs' }, { b: 'mine', c: '3' }, [])).toEqual({
      includes: { b: 'theirs' },
      excludes: [],
    });
    expect(contributionGuard(ext, { a: '1' }, undefined, [])).toBeUndefined();
  });

  it(`past ${EXCLUDES_LIMIT} of the owner's rows not held, and more than the column holds, the column whole`, () => {
    const owned = Array.from({ length: EXCLUDES_LIMIT + 2 }, (_, i) => u(i));
    // Declared: u(0); the other LIMIT + 1 are excluded.
    expect(contributionGuard(ports, [u(0)], [u(0)], owned)).toBe('whole');
    // Exactly LIMIT excluded: listed.
    const g = contributionGuard(ports, [u(0)], [u(0), u(1)], owned);
    expect(g !== 'whole' && g?.excludes.length).toBe(EXCLUDES_LIMIT);
    // More than LIMIT, but the column holds even more: listed.
    const big = Array.from({ length: EXCLUDES_LIMIT + 5 }, (_, i) => u(10_000 + i));
    const h = contributionGuard(ports, big, [], owned);
    expect(h !== 'whole' && h?.excludes.length).toBe(EXCLUDES_LIMIT + 2);
  });
});
