/**
 * Differential tests of QoS rules, meters, forwarding groups and static MAC
 * bindings: each scenario runs through the DSL on one ovsdb-server (the
 * bundled NB 7.18.0 schema) and through ovn-nbctl 23.03 on another,
 * both starting empty; the normalized dumps must be equal (or differ only as
 * documented), and what one side refuses the other refuses too; the list
 * operations read what ovn-nbctl lists.
 */

import { afterAll, beforeAll, describe, it } from 'vitest';
import { NB_SCHEMA_7_18, ScenarioPool } from './helpers/differential.js';
import { breadthAListScenarios, breadthAScenarios } from './scenarios/breadth-a.js';
import { checkGetters } from './scenarios/breadth-b.js';

describe('DSL vs ovn-nbctl: QoS, meters, forwarding groups, static MAC bindings (NB 7.18.0, the bundled schema, with ovn-nbctl 23.03)', () => {
  let pool: ScenarioPool;
  beforeAll(async () => {
    pool = await ScenarioPool.start(NB_SCHEMA_7_18, 3);
  });
  afterAll(async () => {
    await pool?.close();
  });
  it.concurrent.each(breadthAScenarios.map((s) => [s.name, s] as const))('%s', async (_name, s) => {
    await pool.check(s);
  });
});

describe('DSL list operations vs ovn-nbctl output (NB 7.18.0)', () => {
  it.concurrent.each(breadthAListScenarios.map((s) => [s.name, s] as const))(
    '%s',
    async (_name, s) => {
      await checkGetters(s, NB_SCHEMA_7_18);
    },
  );
});
