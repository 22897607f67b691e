/**
 * `NB_NEEDS` against both servers: every DSL operation, run over a client
 * that monitors only the tables and columns the registry lists for it, does
 * exactly what it does over a client that monitors everything (the same
 * operations, the same result), so the list is complete; `docs/nb-dsl.md`
 * lists the same tables per operation; and every operation of `src/nb` is
 * in the registry, typed by it.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import * as dsl from '../../src/nb/index.js';
import {
  createNb,
  NB,
  NB_NEEDS,
  type NBTables,
  type NbOperation,
  NbTxn,
} from '../../src/nb/index.js';
import { TransactionBuilder } from '../../src/transactions/builder.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import { CALLS, type Fixture, setup } from './helpers/catalogue.js';
import { NB_SCHEMA_7_18 } from './helpers/differential.js';

/** What a call did: its operations and result, UUIDs of new rows numbered in order. */
function outcome(
  client: DatabaseClient<NBTables>,
  op: NbOperation,
  fixture: Fixture,
  known: ReadonlySet<string>,
): unknown {
  const t = new NbTxn(new TransactionBuilder(NB, client), client);
  let result: unknown;
  try {
    const value = CALLS[op](t, fixture);
    result = { value: summary(value), ops: t.tx.build().ops };
  } catch (e) {
    result = { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
  const fresh = new Map<string, string>();
  return JSON.parse(
    JSON.stringify(result).replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
      (u) => {
        if (known.has(u)) return u;
        if (!fresh.has(u)) fresh.set(u, `new#${fresh.size}`);
        return fresh.get(u)!;
      },
    ),
  );
}

/** A result with rows replaced by their UUIDs (the monitored columns differ between clients). */
function summary(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(summary);
  if (value !== null && typeof value === 'object' && '_uuid' in value) return value._uuid;
  return value;
}

describe.each(TARGETS.filter((t) => t.via === 'direct'))(
  'every DSL operation needs no more than NB_NEEDS says, against %s',
  (target) => {
    const fx = useTarget(target, { schemaPath: NB_SCHEMA_7_18 });
    let full: DatabaseClient<NBTables>;
    let fixture: Fixture;
    let known: Set<string>;
    /** One client per distinct table list, monitoring exactly those tables and columns. */
    const partial = new Map<string, DatabaseClient<NBTables>>();

    beforeAll(async () => {
      full = connectDatabase({ remotes: [fx.remote], model: NB });
      fx.onClose(() => full.close());
      await full.ready;
      ({ value: fixture } = await createNb(full).transact(setup));
      known = new Set();
      for (const table of Object.keys(NB.schema.tables)) {
        for (const row of full.rows(table as keyof NBTables)) known.add(row._uuid);
      }
      await Promise.all(
        Object.values(NB_NEEDS).map(async (needs) => {
          const key = JSON.stringify(needs);
          if (partial.has(key)) return;
          const tables = Object.fromEntries(
            Object.entries(needs).map(([table, columns]) => [table, { columns }]),
          );
          const c = connectDatabase({ remotes: [fx.remote], model: NB, tables: tables as never });
          partial.set(key, c);
          fx.onClose(() => c.close());
          await c.ready;
        }),
      );
    });

    it.each(Object.keys(NB_NEEDS) as NbOperation[])('%s', (op) => {
      const expected = outcome(full, op, fixture, known);
      expect(expected).not.toHaveProperty('error');
      const only = partial.get(JSON.stringify(NB_NEEDS[op]))!;
      expect(outcome(only, op, fixture, known)).toEqual(expected);
    });
  },
);

describe('NB_NEEDS', () => {
  it('docs/nb-dsl.md lists the tables of every operation, as NB_NEEDS does', () => {
    const doc = readFileSync('docs/nb-dsl.md', 'utf8');
    const listed = new Map<string, string[]>();
    for (const m of doc.matchAll(/^\| `(\w+)` \| ([^|]+) \|/gm)) {
      listed.set(
        m[1]!,
        m[2]!
          .split(',')
          .map((s) => s.trim().replace(/`/g, ''))
          .sort(),
      );
    }
    const want = new Map(
      Object.entries(NB_NEEDS).map(([op, needs]) => [op, Object.keys(needs).sort()]),
    );
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(want));
  });

  it('every operation of src/nb is in it, and typed by it', () => {
    const ops = new Set<string>();
    const typed = new Set<string>();
    for (const file of readdirSync('src/nb')) {
      if (!file.endsWith('.ts') || file === 'lookup.ts') continue;
      const text = readFileSync(`src/nb/${file}`, 'utf8');
      for (const m of text.matchAll(/^export function (\w+)\(\s*t: NbTxn\b/gm)) {
        // The operations are the exported ones (not the internal helpers of maps.ts and wait.ts).
        if (typeof (dsl as Record<string, unknown>)[m[1]!] === 'function') ops.add(m[1]!);
      }
      for (const m of text.matchAll(
        /^export function (\w+)<\s*DB extends NeedsOf<'(\w+)'>,?\s*>/gm,
      )) {
        expect(m[2], `${file}: ${m[1]}`).toBe(m[1]);
        typed.add(m[1]!);
      }
    }
    expect([...ops].sort()).toEqual(Object.keys(NB_NEEDS).sort());
    expect([...typed].sort()).toEqual(Object.keys(NB_NEEDS).sort());
  });
});
