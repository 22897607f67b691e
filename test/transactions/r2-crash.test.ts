/**
 * R2, CI size: single-LSP transactions while the standalone ovsdb-server is
 * SIGKILLed and restarted at random points; every reported outcome must
 * match the database (see `test/reliability/r2-harness.ts`; the full run is
 * `test/reliability/r2-crash.ts`).
 */

import { describe, expect, it } from 'vitest';
import { formatR2, runR2 } from '../client/reliability/r2-harness.js';

// The real server only: the harness SIGKILLs and restarts an ovsdb-server
// process and checks its database file afterwards.
describe('R2 crash test (CI size)', () => {
  it('1,500 transactions, 5 server kills: outcomes match the database, nothing lost or duplicated', async () => {
    const report = await runR2({ transactions: 1500, kills: 5 });
    console.log(formatR2(report));
    expect(report.kills).toBe(5);
    expect(report.problems).toEqual([]);
    expect(report.outcomes.unknown).toBe(0);
    expect(report.lostAcknowledged).toBe(0);
    expect(report.phantom).toBe(0);
    expect(report.duplicates).toBe(0);
    expect(report.unreported).toBe(0);
    expect(report.outcomes.committed + report.outcomes['not committed']).toBe(1500);
    // The kills did hit transactions in flight, whose outcomes were resolved.
    expect(report.resolvedAfterLoss).toBeGreaterThan(0);
  }, 60_000);
});
