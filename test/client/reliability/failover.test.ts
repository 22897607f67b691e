/**
 * Leader failover in CI: 3 leader kills during 2,000 transactions on a real
 * 3-server Raft cluster (see `scenario.ts`; the full run is `run.ts`).
 */

import { expect, it } from 'vitest';
import { runFailover } from './scenario.js';

it('survives 3 leader kills during 2,000 transactions: new leader within the backoff bound, replica = dump, found=true', async () => {
  const result = await runFailover({
    kills: 3,
    transactions: 2000,
    ratePerSecond: 150,
    backoff: { initialDelayMs: 50, maxDelayMs: 300 },
  });
  expect(result.kills).toHaveLength(3);
  for (const k of result.kills) {
    // Connected to the new leader, within the backoff cap (plus one round of
    // connection setup on a busy machine) of the leader being known.
    expect(k.observerRemote).toBe(k.leaderRemote);
    expect(k.afterLeaderMs).toBeLessThanOrEqual(result.maxDelayMs + 1000);
    // The replica deep-equals a fresh dump of the cluster.
    expect(k.rowsCompared).toBeGreaterThan(1000);
    expect(k.differences).toEqual([]);
    // Resumed with found=true on both monitors: no initial rows since the first sync.
    expect(k.found).toEqual([true, true]);
    expect(k.initialRowsSinceFirstSync).toBe(0);
  }
  expect(result.finalDifferences).toEqual([]);
  expect(result.finalCounter).toBe(2000);
  expect(result.counterChainOk).toBe(true);
}, 120_000);
