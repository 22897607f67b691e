/**
 * Differential tests of CoPP, connections, TLS configuration, redirect
 * types and the named getters, on NB 7.0.0 (the schema of OVN 23.03):
 * each scenario through the DSL on one ovsdb-server and through ovn-nbctl
 * on another, the normalized dumps compared; each getter's value compared
 * with what ovn-nbctl prints for the same database.
 */

import { afterAll, beforeAll, describe, it } from 'vitest';
import { NB_SCHEMA_7_0, ScenarioPool } from './helpers/differential.js';
import { breadthBScenarios, checkGetters, getterScenarios } from './scenarios/breadth-b.js';

describe('DSL vs ovn-nbctl: CoPP, connections, SSL, redirect type (NB 7.0.0)', () => {
  let pool: ScenarioPool;
  beforeAll(async () => {
    pool = await ScenarioPool.start(NB_SCHEMA_7_0, 3);
  });
  afterAll(async () => {
    await pool?.close();
  });
  it.concurrent.each(breadthBScenarios.map((s) => [s.name, s] as const))('%s', async (_name, s) => {
    await pool.check(s);
  });
});

describe('DSL getters vs ovn-nbctl output (NB 7.0.0)', () => {
  it.concurrent.each(getterScenarios.map((s) => [s.name, s] as const))('%s', async (_name, s) => {
    await checkGetters(s, NB_SCHEMA_7_0);
  });
});
