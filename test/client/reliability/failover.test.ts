/**
 * Leader failover in CI: 3 leader kills during 2,000 transactions on a real
 * 3-server Raft cluster (see `scenario.ts`; the full run is `run.ts`).
 */

import { expect, it } from 'vitest';
import { killProblems, resumable, runFailover } from './scenario.js';

it('survives 3 leader kills during 2,000 transactions: new leader within the backoff bound, replica = dump, found=true', async () => {
  const result = await runFailover({
    kills: 3,
    transactions: 2000,
    ratePerSecond: 150,
    backoff: { initialDelayMs: 50, maxDelayMs: 300 },
  });
  expect(result.kills).toHaveLength(3);
  for (const k of result.kills) {
    // Connected to the new leader within the backoff cap (plus one round of
    // connection setup on a busy machine) of the leader being known; the
    // replica deep-equals a fresh dump of the cluster; resumed with
    // found=true and no `initial` rows whenever the new leader still held
    // the observer's last transaction in its history.
    expect({ kill: k.kill, problems: killProblems(k, result.maxDelayMs) }).toEqual({
      kill: k.kill,
      problems: [],
    });
    expect(k.observerRemote).toBe(k.leaderRemote);
    expect(k.differences).toEqual([]);
  }
  // The writer goes on at its pace during a failover, so the observer is
  // normally back well within the server's history: most resumes find it.
  const resumed = result.kills.filter((k) => resumable(k) && k.found.every(Boolean));
  expect(resumed.length).toBeGreaterThanOrEqual(2);
  expect(result.finalDifferences).toEqual([]);
  expect(result.finalCounter).toBe(2000);
  expect(result.counterChainOk).toBe(true);
}, 120_000);
