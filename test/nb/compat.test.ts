/**
 * `NB_COMPAT` is what the schemas say: per table, exactly the columns of the
 * bundled model that a server of one of `NB_COMPAT_SCHEMAS` lacks, has with
 * a type the model cannot read, or has with a type that may hold a value the
 * model's type has no form for, so that rows may lack them (tables a server
 * lacks entirely are left out: they have no rows there).
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NB, NB_COMPAT, NB_COMPAT_SCHEMAS } from '../../src/nb/index.js';
import { absentColumns, compareSchemas } from '../../src/ovsdb/schema/compat.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';

function schemaOf(version: string) {
  return parseSchema(
    JSON.parse(readFileSync(`test/fixtures/schemas/ovn-nb-${version}.ovsschema`, 'utf8')),
  );
}

describe('NB_COMPAT', () => {
  it('lists, per table, the columns some supported NB schema lacks', () => {
    const union: Record<string, Set<string>> = {};
    for (const version of NB_COMPAT_SCHEMAS) {
      const server = schemaOf(version);
      expect(server.version).toBe(version);
      const report = compareSchemas(NB.schema, server);
      for (const table of Object.keys(NB.schema.tables)) {
        if (report.missingTables.includes(table)) continue;
        const set = union[table] ?? new Set<string>();
        for (const c of absentColumns(report, NB.schema, table)) set.add(c);
        for (const d of report.typeDifferences)
          if (d.table === table && d.rowsMayLack) set.add(d.column);
        if (set.size > 0) union[table] = set;
      }
    }
    const expected = Object.fromEntries(
      Object.entries(union).map(([t, cs]) => [
        t,
        NB.schema.tables[t]!.columnNames.filter((c) => cs.has(c)),
      ]),
    );
    expect(NB_COMPAT).toEqual(expected);
    // The examples the documentation gives.
    expect(NB_COMPAT.ACL).toContain('tier');
    expect(NB_COMPAT.NAT).toContain('gateway_port');
    // 7.19.0 lets it be empty: a row may lack it under the bundled model, where it is required.
    expect(NB_COMPAT.Network_Function).toEqual(['outport']);
  });

  it('covers every NB schema of the fixtures from 6.1.0 on', () => {
    expect(NB_COMPAT_SCHEMAS).toContain(NB.version);
    expect(NB_COMPAT_SCHEMAS[0]).toBe('6.1.0');
  });
});
