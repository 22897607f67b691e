/**
 * Summaries of V8 `.cpuprofile` files (`node --cpu-prof`): the functions
 * with the most self time.
 * @module
 */

import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly hitCount?: number;
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

/** A span of a profile, in the profiler's clock (µs, `process.hrtime` of the machine). */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

/** One function's share of the profile. */
export interface Frame {
  /** `name (file:line)`. */
  readonly frame: string;
  /** Self time, ms. */
  readonly selfMs: number;
  /** Share of all samples, percent. */
  readonly percent: number;
}

/**
 * The weight of each node: its hit count, or within `window` the time of
 * its samples (µs, each sample weighing the interval before the next).
 */
function nodeWeights(p: Profile, window: ProfileWindow | undefined): Map<number, number> {
  const weights = new Map<number, number>();
  if (window === undefined || p.samples === undefined || p.timeDeltas === undefined) {
    for (const n of p.nodes) weights.set(n.id, n.hitCount ?? 0);
    return weights;
  }
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t < window.fromUs || t > window.toUs) continue;
    const id = p.samples[i] as number;
    weights.set(id, (weights.get(id) ?? 0) + (p.timeDeltas[i + 1] ?? 0));
  }
  return weights;
}

/**
 * The `top` functions by self time in the profile at `path` (only the
 * samples within `window`, when given, and then without idle time).
 */
export function topFrames(path: string, top = 15, window?: ProfileWindow): Frame[] {
  const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const weights = nodeWeights(p, window);
  const hits = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const h = weights.get(n.id) ?? 0;
    if (h === 0 || (window !== undefined && n.callFrame.functionName === '(idle)')) continue;
    total += h;
    const url = n.callFrame.url.replace(/^file:\/\/.*?\/(src|bench|codegen|node_modules)\//, '$1/');
    const key = `${n.callFrame.functionName || '(anonymous)'} (${url || 'native'}:${n.callFrame.lineNumber + 1})`;
    hits.set(key, (hits.get(key) ?? 0) + h);
  }
  const msPer =
    window !== undefined ? 1 / 1000 : total > 0 ? (p.endTime - p.startTime) / 1000 / total : 0;
  return [...hits.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, h]) => ({ frame, selfMs: h * msPer, percent: (100 * h) / total }));
}
