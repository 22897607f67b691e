/**
 * Repeated measurement of several variants of one workload, each sample on
 * a fresh server, with the variants' order rotated from one repetition to
 * the next so that none always runs first (on a cooler, or warmer, machine).
 * @module
 */

import { type BenchServer, type ServerKind, withServer } from './servers.js';
import type { BenchContext } from './types.js';

/** One variant: how to measure one sample on a fresh server. */
export interface Variant {
  /** Key of the samples in the result. */
  readonly key: string;
  /** The server it runs against (default: `ovsdb-server`). */
  readonly server?: ServerKind;
  /** Measure one sample (e.g. LSP/s). Throws when the workload breaks. */
  sample(server: BenchServer): Promise<number>;
}

/** Measure every variant `ctx.reps` times; returns the samples per key. */
export async function measureVariants(
  ctx: BenchContext,
  workload: string,
  variants: readonly Variant[],
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>(variants.map((v) => [v.key, []]));
  for (let rep = 0; rep < ctx.reps; rep++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + rep) % variants.length]!;
      const value = await withServer(v.server ?? 'ovsdb-server', ctx.root, (s) => v.sample(s));
      out.get(v.key)!.push(value);
      ctx.log(`${workload} rep ${rep + 1}/${ctx.reps} ${v.key}: ${value.toFixed(1)}`);
    }
  }
  return out;
}
