/**
 * Differential tests of the switching side (switches, ports, port groups,
 * ACLs, address sets, DHCP): each scenario runs through the DSL on one
 * ovsdb-server (NB 7.0.0, the schema of OVN 23.03) and through ovn-nbctl on another, both starting
 * empty; the normalized dumps must be equal.
 */

import { afterAll, beforeAll, describe, it } from 'vitest';
import { NB_SCHEMA_7_0, ScenarioPool } from './helpers/differential.js';
import { switchingScenarios } from './scenarios/switching.js';

describe('DSL vs ovn-nbctl: switching (NB 7.0.0, the schema of OVN 23.03)', () => {
  let pool: ScenarioPool;
  beforeAll(async () => {
    pool = await ScenarioPool.start(NB_SCHEMA_7_0, 3);
  });
  afterAll(async () => {
    await pool?.close();
  });
  it.concurrent.each(switchingScenarios.map((s) => [s.name, s] as const))(
    '%s',
    async (_name, s) => {
      await pool.check(s);
    },
  );
});
