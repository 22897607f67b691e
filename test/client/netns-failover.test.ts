/**
 * Failover under network faults, with default options: a 3-member Raft
 * cluster whose members are hosts of their own (network namespaces linked
 * to a router namespace, `helpers/netns.ts`), serving clients over TCP; a
 * client in the router namespace (`helpers/failover-child.ts`) writes one
 * inserting transaction at a time; then the leader's traffic is dropped
 * silently (firewall DROP rules: no RST, no ICMP)
 *
 * - just after a transaction was written and acknowledged by the leader's
 *   kernel (TCP keepalive probes go unanswered),
 * - before a transaction is written (its bytes are never acknowledged, so
 *   the kernel retransmits them and sends no keepalive),
 * - while nothing is owed (the inactivity probe),
 *
 * or the leader's process is stopped (SIGSTOP: its kernel still answers)
 * while a reply is owed, which must be waited for as a busy server.
 *
 * The cases run at once (each on its own cluster and namespaces): the test
 * takes about as long as the stopped case (25 s stopped). Each case prints
 * its times (from the fault: the in-flight transaction settled, the client
 * in sync on the new leader, the next transaction committed); they are
 * asserted only against generous bounds (the goal is 20 s; with
 * `replySilenceTimeoutMs` alone the second case took 300 s). Afterwards every
 * transaction's reported outcome is `committed` or `not committed`, and the
 * database holds exactly the committed ones, once each.
 *
 * Needs root, `ip` and `iptables`; fails under CI=true without them.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireOvsdbServer, startOvsdbCluster } from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import type { ChildArgs, ChildReport } from './helpers/failover-child.js';
import { canMakeNamespaces, NetLab } from './helpers/netns.js';
import { lastJsonLine, runChild } from './helpers/run-child.js';

requireOvsdbServer();

const namespaces = canMakeNamespaces();
if (!namespaces) {
  if (process.env['CI'] === 'true') {
    throw new Error('netns-failover: network namespaces are needed (root, ip, iptables)');
  }
  console.warn(
    '\n*** netns-failover.test.ts: SKIPPED: needs root, ip and iptables (network namespaces) ***\n',
  );
}

/** How long the stopped leader stays stopped: longer than the lost-path cases take. */
const STOP_MS = 25_000;
/** A bound no case may reach (waiting for replySilenceTimeoutMs took 300 s). */
const BOUND_MS = 60_000;

const CHILD = join(import.meta.dirname, 'helpers/failover-child.ts');

async function runClient(router: string, args: ChildArgs): Promise<ChildReport> {
  const out = await runChild(
    'ip',
    [
      'netns',
      'exec',
      router,
      process.execPath,
      '--conditions=ovnkit-source',
      '--import',
      'tsx',
      CHILD,
      JSON.stringify(args),
    ],
    STOP_MS + BOUND_MS + 30_000,
  );
  return lastJsonLine<ChildReport>(out);
}

const CASES = [
  ['written', 'just after a transaction was written and acknowledged'],
  ['before', 'before a transaction is written (its bytes never acknowledged)'],
  ['idle', 'while the client is idle'],
  ['stopped', 'the leader process stopped (SIGSTOP) while a reply is owed'],
] as const;

describe.runIf(namespaces).concurrent('failover with default options over TCP', () => {
  it.each(CASES)(
    '%s: %s',
    async (which, _title) => {
      const lab = NetLab.create(`ovk${process.pid}${which[0]}`, 3);
      let cluster: Awaited<ReturnType<typeof startOvsdbCluster>> | undefined;
      try {
        cluster = await startOvsdbCluster({ schema: TEST_SCHEMA, size: 3, hosts: lab.hosts });
        const r = await runClient(lab.router, {
          case: which,
          remotes: cluster.members.map((m) => m.tcpRemote!),
          drop: lab.hosts.map((_, i) => ({
            raft: lab.dropCommands(i, 'raft'),
            all: lab.dropCommands(i, 'all'),
          })),
          pids: cluster.members.map((m) => m.pid),
          stopMs: STOP_MS,
        });
        console.log(
          `${which}: settled ${r.settledMs ?? '-'} ms, lost ${r.lostMs} ms, in sync on the new leader ${r.reconnectedMs} ms, committed again ${r.committedMs} ms (${r.reason})`,
        );

        // The client moved to another member and resumed its monitor there.
        expect(r.newLeader).toBeGreaterThanOrEqual(0);
        expect(r.newLeader).not.toBe(r.oldLeader);
        expect(r.found).toEqual([true]);
        const reason = {
          written: /^the server's host answers nothing: \d+ TCP probes without an answer/,
          before: /^the server's host acknowledges nothing: \d+ bytes sent \d+ times/,
          idle: /^inactivity probe: nothing received from the server for \d+ ms$/,
          stopped: /not the .* cluster leader/,
        }[which];
        expect(r.reason).toMatch(reason);
        if (which === 'stopped') {
          // Waited for as a busy server: nothing happened until it was resumed.
          expect(r.eventsWhileStopped).toEqual([]);
          expect(r.lostMs).toBeGreaterThanOrEqual(STOP_MS);
          expect(r.committedMs).toBeLessThan(STOP_MS + BOUND_MS);
        } else {
          expect(r.committedMs).toBeLessThan(BOUND_MS);
          for (const t of [r.settledMs ?? 0, r.lostMs, r.reconnectedMs]) {
            expect(t).toBeLessThanOrEqual(r.committedMs);
          }
        }
        if (which !== 'idle') expect(r.settledMs).toBeDefined();

        // Every outcome is known, and the database holds the committed ones once each.
        expect(
          r.writes.filter((w) => w.outcome !== 'committed' && w.outcome !== 'not committed'),
        ).toEqual([]);
        const reply = JSON.parse(
          await cluster.ovsdbClient(
            r.newLeader,
            'transact',
            JSON.stringify([DB, { op: 'select', table: 'Item', where: [], columns: ['name'] }]),
          ),
        ) as [{ rows: { name: string }[] }];
        const names = reply[0].rows.map((row) => row.name).sort();
        const committed = r.writes.filter((w) => w.outcome === 'committed').map((w) => w.name);
        expect(names).toEqual([...committed].sort());
        expect(committed).toContain('after');
      } finally {
        await cluster?.stop();
        lab.destroy();
      }
    },
    STOP_MS + BOUND_MS + 60_000,
  );
});
