/**
 * W10: declarative desired state at 10,000 ports (20 switches × 500, one
 * owner), applied once; then each repetition changes 1 % (100 ports' addresses)
 * and makes the database match, once per subject, the subjects interleaved
 * (order rotated per repetition) against one ovsdb-server (NB 7.18.0):
 * - `W10.plan`: `planDesired` alone (no I/O), with the operations and guards
 *   it plans, and `W10.declare`, the `add` calls of the 10,000 rows;
 * - `W10.apply`: `applyDesired` until it resolves (plan, guarded
 *   transaction, the replica showing the commit), with its client CPU;
 * - `W10.reconcile`: a `desiredReconciler` over one long-lived desired
 *   state kept up to date with `set`, `apply()` until it resolves (an
 *   incremental plan of the changed ports and of the rows its last commit
 *   changed, the guarded transaction, the replica), with its client CPU,
 *   and `W10.reconcile.plan`, its `plan()` alone; the reconciler's first,
 *   full plan and one warm change are made on the fresh connection before
 *   the timed changes (5 per sample, the sample their median, as for the
 *   raw changed-only subjects: one change takes a few ms);
 * - `W10.raw-changed`: the raw client sending only the 100 updates,
 *   pre-serialized, in one transaction, until the reply; `W10.raw-changed-rw`
 *   the same on a raw client that monitors the ports, until the reply and
 *   the update notification (read-your-writes, as `applyDesired` waits);
 * - `W10.raw-guarded`: the raw client sending, pre-serialized, the
 *   changed ports' mutates with the guards a guarded apply puts before them
 *   (a `wait` on each port's `external_ids` and `addresses`), until the
 *   reply: what the server alone spends on the guards, and what
 *   `reconcile` is judged against (the same operations from a client with
 *   no work of its own); its ratio to `raw-changed` is shown without a
 *   target, as are `reconcile`'s to the unguarded raw subjects;
 * - `W10.naive-ovnkit` / `W10.naive-raw`: read all, write all, an update of
 *   every one of the 10,000 rows (from the replica through the typed
 *   builder; after a `select` of every port on the raw client).
 * Each subject has its own connection, opened (and synced) before its timed
 * section, so no other client shares the process while it is measured.
 * Every change is checked: the plan holds exactly the changed rows, and
 * after every subject the desired state plans empty. One untimed round of
 * every subject comes first (a controller runs warm).
 * `--quick`: 4 × 250 ports, 1 % changed.
 * @module
 */

import { applyDesired, planDesired } from '../../src/desired/index.js';
import { DB } from '../lib/nb-data.js';
import { openOvnkit } from '../lib/ovnkit-side.js';
import { RawClient } from '../lib/raw-client.js';
import { contextRatio, emptyResult, figure, ratio } from '../lib/results.js';
import { startBenchServer } from '../lib/servers.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';
import {
  type DesiredSample,
  desiredSample,
  median,
  naiveOvnkitSample,
  naiveRawSample,
  rawChangedSample,
  rawGuardedSample,
  reconcilerSample,
  W10LiveState,
  W10Topology,
} from './w10-subjects.js';

/** W10's sizes. */
export function w10Sizes(quick: boolean): { switches: number; perSwitch: number } {
  return quick ? { switches: 4, perSwitch: 250 } : { switches: 20, perSwitch: 500 };
}

type Subject =
  | 'desired'
  | 'reconcile'
  | 'raw-changed'
  | 'raw-changed-rw'
  | 'raw-guarded'
  | 'naive-ovnkit'
  | 'naive-raw';
const SUBJECTS: readonly Subject[] = [
  'desired',
  'reconcile',
  'raw-changed',
  'raw-changed-rw',
  'raw-guarded',
  'naive-ovnkit',
  'naive-raw',
];

/** W10. */
export const w10: Workload = {
  id: 'W10',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const { switches, perSwitch } = w10Sizes(ctx.quick);
    const topo = new W10Topology(switches, perSwitch, Math.max(1, (switches * perSwitch) / 100));
    // The reconciler and the raw changed-only subjects time this many changes per sample (its median).
    const changes = ctx.quick ? 1 : 5;
    const result = emptyResult(
      'W10',
      `desired state, ${topo.ports} ports (${switches} switches × ${perSwitch}), ${topo.changed} changed per repetition, ovsdb-server NB 7.18.0`,
    );
    const server = await startBenchServer('ovsdb-server', ctx.root);
    try {
      const setup = await openOvnkit(server.remote);
      try {
        const first = await applyDesired(setup.client, topo.desired());
        if (first.operations !== topo.ports + switches) {
          throw new Error(`W10: the first apply sent ${first.operations} operations`);
        }
      } finally {
        await setup.close();
      }
      const live = new W10LiveState(topo);
      let reconcileRows = 0;
      const samples = new Map<string, number[]>();
      // Round -1 is an untimed warm-up of every subject (a controller runs warm).
      let warm = false;
      const push = (k: string, v: number) => {
        if (!warm) return;
        const list = samples.get(k) ?? [];
        list.push(v);
        samples.set(k, list);
      };
      let last: DesiredSample | undefined;
      for (let rep = -1; rep < ctx.reps; rep++) {
        warm = rep >= 0;
        for (let k = 0; k < SUBJECTS.length; k++) {
          const subject = SUBJECTS[(k + Math.max(rep, 0)) % SUBJECTS.length]!;
          let ms: number;
          if (subject === 'desired' || subject === 'naive-ovnkit' || subject === 'reconcile') {
            const s = await openOvnkit(server.remote);
            try {
              if (subject === 'reconcile') {
                const r = await reconcilerSample(s.client, topo, live, changes);
                push('W10.reconcile.plan', r.planMs);
                push('W10.reconcile.cpu', r.applyCpuMs);
                reconcileRows = r.rowsPlanned;
                ms = r.applyMs;
              } else if (subject === 'desired') {
                const d = await desiredSample(s.client, topo);
                push('W10.declare', d.declareMs);
                push('W10.plan', d.planMs);
                push('W10.apply.cpu', d.applyCpuMs);
                if (warm) last = d;
                ms = d.applyMs;
              } else {
                ms = await naiveOvnkitSample(s.client, s.db, topo);
              }
            } finally {
              await s.close();
            }
          } else {
            const c = await RawClient.open(server.socketPath);
            try {
              if (subject === 'raw-changed-rw') {
                await c.request('monitor_cond', [
                  DB,
                  'w10',
                  { Logical_Switch_Port: [{ columns: ['name', 'addresses'] }] },
                ]);
              }
              if (subject === 'naive-raw') ms = await naiveRawSample(c, topo);
              else {
                const each: number[] = [];
                for (let k = 0; k < changes; k++) {
                  each.push(
                    subject === 'raw-guarded'
                      ? await rawGuardedSample(c, topo)
                      : await rawChangedSample(c, topo, subject === 'raw-changed-rw'),
                  );
                }
                ms = median(each);
              }
            } finally {
              c.close();
            }
          }
          push(subject === 'desired' ? 'W10.apply' : `W10.${subject}`, ms);
          ctx.log(
            `W10 ${warm ? `rep ${rep + 1}/${ctx.reps}` : 'warm-up'} ${subject}: ${ms.toFixed(1)} ms`,
          );
          // Every subject leaves the database matching the desired state.
          const check = await openOvnkit(server.remote);
          try {
            const plan = planDesired(check.client, topo.desired());
            if (!plan.empty) {
              throw new Error(
                `W10: after ${subject}, the plan holds ${plan.changes.length} changes`,
              );
            }
          } finally {
            await check.close();
          }
        }
      }
      const f = (id: string, subject: string, note?: string) =>
        figure(id, subject, 'ms', samples.get(id)!, { higherIsBetter: false, note });
      const apply = f('W10.apply', 'applyDesired (plan + guarded transaction + replica)');
      const reconcile = f(
        'W10.reconcile',
        'desiredReconciler apply (incremental plan + guarded transaction + replica)',
        `${reconcileRows} rows planned`,
      );
      const raw = f('W10.raw-changed', 'raw client, only the changed updates, until the reply');
      const rawRw = f(
        'W10.raw-changed-rw',
        'raw client, only the changed updates, until the reply and the update notification',
      );
      const rawGuarded = f(
        'W10.raw-guarded',
        'raw client, the changed mutates and their guards (what the server alone spends on them)',
      );
      const naiveOvnkit = f(
        'W10.naive-ovnkit',
        'read all, write all: typed builder over the replica',
      );
      const naiveRaw = f('W10.naive-raw', 'read all, write all: raw select + an update per port');
      const plan = f(
        'W10.plan',
        'planDesired alone',
        last === undefined ? undefined : `${last.operations} operations, ${last.guards} guards`,
      );
      result.figures.push(
        f('W10.declare', `declaring the ${topo.ports} rows (nbDesiredState add)`),
        plan,
        apply,
        figure('W10.apply.cpu', 'applyDesired: client CPU', 'ms', samples.get('W10.apply.cpu')!, {
          higherIsBetter: false,
          cpuOf: 'W10.apply',
        }),
        reconcile,
        f('W10.reconcile.plan', 'desiredReconciler plan() alone'),
        figure(
          'W10.reconcile.cpu',
          'desiredReconciler apply: client CPU',
          'ms',
          samples.get('W10.reconcile.cpu')!,
          { higherIsBetter: false, cpuOf: 'W10.reconcile' },
        ),
        raw,
        rawRw,
        rawGuarded,
        naiveOvnkit,
        naiveRaw,
      );
      if (last !== undefined) {
        result.figures.push(
          figure('W10.operations', 'operations planned per change', 'ops', [last.operations], {
            higherIsBetter: false,
            note: `${last.guards} guards (wait) beside them`,
          }),
        );
      }
      result.ratios.push(
        // Judged against the raw client sending the same guarded operations.
        ratio('reconcile/raw-guarded', reconcile, rawGuarded, '<=', 1.5),
        contextRatio('reconcile/raw-changed', reconcile, raw),
        contextRatio('reconcile/raw-changed-rw', reconcile, rawRw),
        // No target: how far the server alone puts the guarded change from the unguarded one.
        contextRatio('raw-guarded/raw-changed', rawGuarded, raw),
        ratio('apply/raw-changed', apply, raw, '<=', 1.5),
        ratio('apply/raw-changed-rw', apply, rawRw, '<=', 1.5),
        ratio('naive-ovnkit/apply', naiveOvnkit, apply, '>=', 1),
        ratio('naive-raw/apply', naiveRaw, apply, '>=', 1),
      );
      return result;
    } finally {
      await server.stop();
    }
  },
};
