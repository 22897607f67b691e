/**
 * Repeated measurement of several variants of one workload, each sample on
 * a fresh server. The variants are interleaved within every repetition (one
 * sample of each, then the next repetition), so that the i-th samples of two
 * variants were taken minutes apart at most and under much the same load:
 * the ratios of the workloads pair them per repetition. The order is
 * rotated from one repetition to the next so that none always runs first.
 *
 * Variants that run in this process (`warmUp`) are first measured once,
 * untimed and unrecorded, before the first repetition (in a full run):
 * V8 compiles their hot paths over the first several thousand operations,
 * and a controller runs warm (W10 and the scaling bench do the same).
 * Peers in processes of their own start cold in every sample either way.
 * @module
 */

import { type BenchServer, type ServerKind, startBenchServer } from './servers.js';
import type { BenchContext } from './types.js';

/** A sample with the client's CPU time per operation measured alongside. */
export interface MeasuredSample {
  /** The sample (e.g. LSP/s). */
  readonly value: number;
  /** User + system CPU time of the client process in the timed section, µs per operation. */
  readonly cpuUsPerOp?: number | undefined;
}

/** One variant: how to measure one sample on a fresh server. */
export interface Variant {
  /** Key of the samples in the result. */
  readonly key: string;
  /** The server it runs against (default: `ovsdb-server`). */
  readonly server?: ServerKind;
  /**
   * Whether it runs in this process: it is then measured once more before
   * the first repetition, as an unrecorded warm-up (full runs only).
   */
  readonly warmUp?: boolean;
  /** Measure one sample (e.g. LSP/s). Throws when the workload breaks. */
  sample(server: BenchServer): Promise<number | MeasuredSample>;
}

/** The samples per variant key, in repetition order, and the CPU samples of those that report it. */
export class VariantSamples extends Map<string, number[]> {
  /** µs of client CPU per operation, per key, in repetition order (only keys that report it). */
  readonly cpu = new Map<string, number[]>();
}

/** Measure every variant `ctx.reps` times; returns the samples per key. */
export async function measureVariants(
  ctx: BenchContext,
  workload: string,
  variants: readonly Variant[],
): Promise<VariantSamples> {
  const out = new VariantSamples(variants.map((v) => [v.key, []]));
  const once = async (v: Variant): Promise<number | MeasuredSample> => {
    const server = await startWithRetry(ctx, v.server ?? 'ovsdb-server');
    try {
      return await v.sample(server);
    } finally {
      await server.stop();
    }
  };
  if (!ctx.quick) {
    for (const v of variants) {
      if (v.warmUp !== true) continue;
      const got = await once(v);
      const value = typeof got === 'number' ? got : got.value;
      ctx.log(`${workload} warm-up ${v.key}: ${value.toFixed(1)} (cold, not recorded)`);
    }
  }
  for (let rep = 0; rep < ctx.reps; rep++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + rep) % variants.length]!;
      const got = await once(v);
      const value = typeof got === 'number' ? got : got.value;
      out.get(v.key)!.push(value);
      let cpu = '';
      if (typeof got !== 'number' && got.cpuUsPerOp !== undefined) {
        const list = out.cpu.get(v.key) ?? [];
        list.push(got.cpuUsPerOp);
        out.cpu.set(v.key, list);
        cpu = `, CPU ${got.cpuUsPerOp.toFixed(1)} µs/op`;
      }
      ctx.log(`${workload} rep ${rep + 1}/${ctx.reps} ${v.key}: ${value.toFixed(1)}${cpu}`);
    }
  }
  return out;
}

/**
 * Start a fresh server, retrying twice: on a loaded machine starting one
 * occasionally fails (its control socket not up in time), which is not the
 * workload breaking.
 */
async function startWithRetry(ctx: BenchContext, kind: ServerKind): Promise<BenchServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startBenchServer(kind, ctx.root);
    } catch (e) {
      if (attempt >= 3) throw e;
      ctx.log(`starting ${kind} failed (attempt ${attempt}, retrying): ${(e as Error).message}`);
    }
  }
}

/** Client CPU time (user + system, µs) of this process since the call; call the result to read it. */
export function cpuClock(): () => number {
  const start = process.cpuUsage();
  return () => {
    const d = process.cpuUsage(start);
    return d.user + d.system;
  };
}
