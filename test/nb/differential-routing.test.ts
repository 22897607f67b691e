/**
 * Differential tests of the routing side (routers, router ports, gateway chassis,
 * NAT, policies, routes, load balancers): each scenario runs through the DSL on one
 * ovsdb-server (NB 7.18.0) and through ovn-nbctl on another, both starting
 * empty; the normalized dumps must be equal.
 */

import { afterAll, beforeAll, describe, it } from 'vitest';
import { NB_SCHEMA_7_18, ScenarioPool } from './helpers/differential.js';
import { routingScenarios } from './scenarios/routing.js';

describe('DSL vs ovn-nbctl: routing (NB 7.18.0)', () => {
  let pool: ScenarioPool;
  beforeAll(async () => {
    pool = await ScenarioPool.start(NB_SCHEMA_7_18, 3);
  });
  afterAll(async () => {
    await pool?.close();
  });
  it.concurrent.each(routingScenarios.map((s) => [s.name, s] as const))('%s', async (_name, s) => {
    await pool.check(s);
  });
});
