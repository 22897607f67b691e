/**
 * One DSL program against every NB schema from 6.1.0 to 7.19.0, each served
 * by a real `ovsdb-server` (all started at once, each on its own temporary
 * unix socket):
 *
 * - with the bundled model (7.18.0): the program (switches, ports, a port
 *   group with ACLs, a router with NAT and routes, a load balancer, DHCP)
 *   commits, and so does each step the server's schema supports; a step
 *   using what it lacks (a column, an enum value, a table) fails before
 *   anything is sent with a `SchemaDriftError` naming it and the server's
 *   version; the server's database is then what the program and the
 *   committed steps asked for, read back raw;
 * - with a model generated from the server's own schema (ovnkit-codegen, as
 *   a user runs it): the same program commits, and the database is what it
 *   asked for. (That the program type-checks with every generated model is
 *   part of the tsc run of `test/codegen/typecheck.test.ts`.)
 *
 * One line per schema version is printed.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, writeGenerated } from '../../codegen/index.js';
import { connectDatabase } from '../../src/client/open.js';
import { createNb, NB, NB_COMPAT_SCHEMAS, type NBTables } from '../../src/nb/index.js';
import { SchemaDriftError } from '../../src/ovsdb/schema/compat.js';
import type { DatabaseModel } from '../../src/ovsdb/schema/model.js';
import { parseSchemaText } from '../../src/ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../src/ovsdb/schema/schema-types.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../src/testing/index.js';
import { rawConnection } from '../client/helpers/fixtures.js';
import { ROOT, removeDir, scratchDir } from '../codegen/helpers.js';
import {
  expectedSummary,
  STEPS,
  type StepNeed,
  type Summary,
  sorted,
  summarize,
  topologyFor,
} from './helpers/matrix-program.js';
import { buildTopology } from './helpers/matrix-topology.js';

/** Every NB schema of the fixtures, 6.1.0 to 7.19.0 (the ones `NB_COMPAT` covers). */
const VERSIONS = NB_COMPAT_SCHEMAS;
type Version = (typeof VERSIONS)[number];

const schemaPath = (v: Version) => join(ROOT, `test/fixtures/schemas/ovn-nb-${v}.ovsschema`);
const schemas = new Map<Version, DatabaseSchema>(
  VERSIONS.map((v) => [v, parseSchemaText(readFileSync(schemaPath(v), 'utf8'))]),
);

const servers = new Map<Version, OvsdbServerHandle>();
const scratch = scratchDir('nb-matrix');
const lines = new Map<Version, string[]>();
let startedMs = 0;

beforeAll(async () => {
  const t0 = performance.now();
  const started = await Promise.all(
    VERSIONS.map((v) => startOvsdbServer({ schemaPath: schemaPath(v) })),
  );
  for (const [i, v] of VERSIONS.entries()) servers.set(v, started[i]!);
  startedMs = performance.now() - t0;
}, 60_000);

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.stop()));
  removeDir(scratch);
  console.log(
    `NB version matrix: ${VERSIONS.length} ovsdb-servers started in ${startedMs.toFixed(0)} ms`,
  );
  for (const v of VERSIONS) console.log(`NB ${v}: ${(lines.get(v) ?? ['not run']).join('; ')}`);
});

/** What of `need` the schema lacks: the table, the column, or the enum value; undefined when it has it. */
function lacking(schema: DatabaseSchema, need: StepNeed): 'table' | 'column' | 'value' | undefined {
  const table = schema.tables[need.table];
  if (table === undefined) return 'table';
  if (need.column === undefined) return undefined;
  const column = table.columns[need.column];
  if (column === undefined) return 'column';
  if (need.value === undefined) return undefined;
  const values = column.type.key.enum;
  return values === undefined || values.includes(need.value) ? undefined : 'value';
}

/** The server's database, as the program sees it. */
async function dump(v: Version): Promise<Summary> {
  const raw = await rawConnection(servers.get(v)!.unixRemote);
  try {
    return sorted(
      await summarize(raw, 'OVN_Northbound', new Set(Object.keys(schemas.get(v)!.tables))),
    );
  } finally {
    raw.close();
  }
}

/** Delete every row the program may have written (so the next run starts empty). */
async function clear(v: Version): Promise<void> {
  const raw = await rawConnection(servers.get(v)!.unixRemote);
  try {
    const roots = [
      'Logical_Switch',
      'Logical_Router',
      'Port_Group',
      'Load_Balancer',
      'DHCP_Options',
      'Mirror',
    ];
    await raw.transact(
      'OVN_Northbound',
      roots
        .filter((t) => schemas.get(v)!.tables[t] !== undefined)
        .map((table) => ({ op: 'delete' as const, table, where: [] })),
    );
  } finally {
    raw.close();
  }
}

/** What a program typed by a generated model is, as this file sees it. */
interface Generated {
  readonly model: DatabaseModel<NBTables>;
  readonly build: typeof buildTopology;
}

/**
 * The model ovnkit-codegen generates from NB `v` and the program typed by it
 * (both written into the scratch directory, then imported).
 */
async function generated(v: Version): Promise<Generated> {
  const out = join(scratch, v);
  const ovsdb = relative(out, join(ROOT, 'src/ovsdb')).split('\\').join('/');
  writeGenerated(
    out,
    generate({
      schema: readFileSync(schemaPath(v), 'utf8'),
      ovsdbImport: {
        uuid: `${ovsdb}/values/uuid.js`,
        int64: `${ovsdb}/values/int64.js`,
        model: `${ovsdb}/schema/model.js`,
        schema: `${ovsdb}/schema/schema.js`,
      },
    }),
  );
  writeFileSync(join(out, 'program.ts'), topologyFor(out, './index.js'));
  const mod = (await import(join(out, 'model.ts'))) as { NB: DatabaseModel<NBTables> };
  const program = (await import(join(out, 'program.ts'))) as {
    buildTopology: typeof buildTopology;
  };
  return { model: mod.NB, build: program.buildTopology };
}

describe.each(VERSIONS)('NB %s', (v) => {
  it('the bundled model: the program and the steps the schema supports commit; the others fail before sending', async () => {
    const schema = schemas.get(v)!;
    const client = connectDatabase({ remotes: servers.get(v)!.unixRemote, model: NB });
    const nb = createNb(client);
    const out: string[] = [];
    try {
      await client.ready;
      await nb.transact((t) => buildTopology(t));
      const expected = expectedSummary();
      const committed: string[] = [];
      const refused: string[] = [];
      for (const step of STEPS) {
        const missing = lacking(schema, step.needs);
        const result = await nb
          .transact((t) => step.run(t))
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        if (missing === undefined) {
          expect(result, step.name).toBeUndefined();
          step.adds(expected);
          committed.push(step.name);
          continue;
        }
        expect(result, step.name).toBeInstanceOf(SchemaDriftError);
        const e = result as SchemaDriftError;
        expect(e.serverVersion).toBe(v);
        expect(e.table).toBe(step.needs.table);
        expect(e.column).toBe(missing === 'table' ? undefined : step.needs.column);
        expect(e.message).toContain(`version ${v}`);
        if (missing === 'value') {
          // The refused value (wire form: a set holds it).
          expect(JSON.stringify(e.value)).toContain(JSON.stringify(step.needs.value));
          expect(e.message).toContain(JSON.stringify(step.needs.value));
        }
        const what =
          missing === 'table'
            ? step.needs.table
            : missing === 'column'
              ? `${step.needs.table}.${step.needs.column}`
              : `${step.needs.table}.${step.needs.column} ${JSON.stringify(step.needs.value)}`;
        refused.push(what);
      }
      expect(await dump(v)).toEqual(sorted(expected));
      out.push(
        `bundled ${NB.version} model: program committed, ${committed.length}/${STEPS.length} steps committed, refused before sending: ${refused.join(', ') || 'none'}; dump as asked`,
      );
    } finally {
      await client.close();
      lines.set(v, out);
    }
  });

  it('a model generated from the schema: the same program commits, and the dump is what it asked for', async () => {
    await clear(v);
    const { model, build } = await generated(v);
    expect(model.version).toBe(v);
    const client = connectDatabase({ remotes: servers.get(v)!.unixRemote, model });
    try {
      await client.ready;
      expect(client.compat!.identical).toBe(true);
      await createNb(client).transact((t) => build(t));
      expect(await dump(v)).toEqual(sorted(expectedSummary()));
      lines.get(v)?.push(`generated ${v} model: program committed; dump as asked`);
    } finally {
      await client.close();
    }
  });
});
