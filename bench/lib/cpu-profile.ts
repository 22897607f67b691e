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

/** The `top` functions by self time in the profile at `path`. */
export function topFrames(path: string, top = 15): Frame[] {
  const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const hits = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const h = n.hitCount ?? 0;
    if (h === 0) continue;
    total += h;
    const url = n.callFrame.url.replace(/^file:\/\/.*?\/(src|bench|codegen|node_modules)\//, '$1/');
    const key = `${n.callFrame.functionName || '(anonymous)'} (${url || 'native'}:${n.callFrame.lineNumber + 1})`;
    hits.set(key, (hits.get(key) ?? 0) + h);
  }
  const msPerHit = total > 0 ? (p.endTime - p.startTime) / 1000 / total : 0;
  return [...hits.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, h]) => ({ frame, selfMs: h * msPerHit, percent: (100 * h) / total }));
}
