/**
 * The OVN fixture (`startOvn`): NB and SB with a real `ovn-northd` between
 * them, on the in-memory server (the default) and on real ovsdb-servers;
 * `waitForSb` resolves once SB reflects NB, so that a test reads the
 * logical flows and bindings northd made for what it wrote. Without
 * `ovn-northd` the fixture skips loudly with the reason, and fails under
 * `CI=true`.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { connectDatabase } from '../../src/client/index.js';
import { NB } from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { defineModel } from '../../src/ovsdb/schema/model.js';
import { parseSchemaText } from '../../src/ovsdb/schema/schema.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import {
  assertDataSubset,
  type OvnFixture,
  OvnNorthdMissingError,
  ovnNorthdMissing,
  requireOvsdbServer,
  startOvnOrSkip,
} from '../../src/testing/index.js';
import '../../src/testing/vitest.js';
import { closeAfterEach } from './kit-helpers.js';

const track = closeAfterEach();

/** The SB schema installed with ovn-northd (the fixture's default). */
const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';

const NB_SEED = {
  Logical_Switch: { sw0: { name: 'sw0', ports: ['p1', 'p2'] } },
  Logical_Switch_Port: {
    p1: { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.1'] },
    p2: { name: 'p2', addresses: ['00:00:00:00:00:02 10.0.0.2'] },
  },
} as const;

/** The logical ports SB binds, and how many logical flows it holds, read over a raw connection. */
async function sbView(ovn: OvnFixture<unknown>): Promise<{ ports: string[]; flows: number }> {
  const conn = await connect(ovn.sb.remote);
  try {
    const [pbs, flows] = (await conn.transact('OVN_Southbound', [
      { op: 'select', table: 'Port_Binding', where: [], columns: ['logical_port'] },
      { op: 'select', table: 'Logical_Flow', where: [], columns: ['_uuid'] },
    ] as Operation[])) as { rows: Record<string, unknown>[] }[];
    return {
      ports: (pbs?.rows ?? []).map((r) => String(r['logical_port'])).sort(),
      flows: flows?.rows.length ?? 0,
    };
  } finally {
    conn.close();
  }
}

describe.each(['memory', 'ovsdb-server'] as const)('startOvn on %s', (server) => {
  it('northd turns the seeded NB into SB bindings and flows; waitForSb follows later NB writes', async (ctx) => {
    if (server === 'ovsdb-server') requireOvsdbServer();
    const ovn = await startOvnOrSkip(ctx, { server, nbSeed: NB_SEED });
    track({ close: () => ovn.stop() });
    await ovn.waitForSb();
    const first = await sbView(ovn);
    expect(first.ports).toEqual(['p1', 'p2']);
    expect(first.flows).toBeGreaterThan(10);

    // A controller adds a port through its own client.
    const client = connectDatabase({ remotes: ovn.nb.remote, model: NB });
    track(client);
    await client.ready;
    await client.transactRaw([
      { op: 'insert', table: 'Logical_Switch_Port', row: { name: 'p3' }, 'uuid-name': 'p3' },
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['_uuid', '==', ['uuid', ovn.uuid('Logical_Switch', 'sw0')]]],
        mutations: [['ports', 'insert', ['named-uuid', 'p3']]],
      },
    ] as Operation[]);
    await ovn.waitForSb();
    expect((await sbView(ovn)).ports).toEqual(['p1', 'p2', 'p3']);

    if (server === 'memory') {
      // In memory, SB is a test database: the state matchers read it directly.
      await expect(ovn.sb.db).toHaveDataSubset({
        Port_Binding: [{ logical_port: 'p1' }, { logical_port: 'p2' }, { logical_port: 'p3' }],
      });
    } else {
      // On ovsdb-server, a client's replica of SB, once caught up.
      const sbModel = defineModel(parseSchemaText(readFileSync(SB_SCHEMA, 'utf8')));
      const sb = connectDatabase({ remotes: ovn.sb.remote, model: sbModel });
      track(sb);
      await sb.ready;
      await assertDataSubset(sb, {
        Port_Binding: [{ logical_port: 'p1' }, { logical_port: 'p2' }, { logical_port: 'p3' }],
      });
    }
  }, 60_000);
});

describe('without ovn-northd', () => {
  it('skips loudly with the reason, and fails under CI=true', () => {
    const empty = mkdtempSync(join(tmpdir(), 'ovnkit-nobin-'));
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.stubEnv('OVNKIT_OVS_BIN_DIRS', empty);
    try {
      vi.stubEnv('CI', '');
      expect(ovnNorthdMissing()).toBe('ovn-northd is not installed (apt-get install ovn-central)');
      expect(String(stderr.mock.calls[0]?.[0])).toContain('ovn-northd NOT FOUND');
      vi.stubEnv('CI', 'true');
      expect(() => ovnNorthdMissing()).toThrow(OvnNorthdMissingError);
      expect(() => ovnNorthdMissing()).toThrow(/CI=true: a missing program is a failure/);
    } finally {
      vi.unstubAllEnvs();
      stderr.mockRestore();
      rmSync(empty, { recursive: true, force: true });
    }
    // Installed here: nothing to report.
    expect(ovnNorthdMissing()).toBeUndefined();
  });
});
