/**
 * Builders for {@link Figure}s and {@link Ratio}s.
 * @module
 */

import { median } from './stats.js';
import type { Figure, Ratio, WorkloadResult } from './types.js';

/** Make a figure from its samples. */
export function figure(
  id: string,
  subject: string,
  unit: string,
  samples: readonly number[],
  options: { readonly higherIsBetter?: boolean; readonly note?: string } = {},
): Figure {
  return {
    id,
    workload: id.split('.')[0]!,
    subject,
    unit,
    higherIsBetter: options.higherIsBetter ?? unit.endsWith('/s'),
    samples: [...samples],
    median: median(samples),
    ...(options.note !== undefined ? { note: options.note } : {}),
  };
}

/** The ratio of two figures' medians against a target. */
export function ratio(
  label: string,
  num: Figure,
  den: Figure,
  comparison: '>=' | '<=',
  target: number,
): Ratio {
  const value = num.median / den.median;
  return {
    id: `${num.workload} ${label}`,
    workload: num.workload,
    label,
    numerator: num.id,
    denominator: den.id,
    value,
    target,
    comparison,
    met: comparison === '>=' ? value >= target : value <= target,
  };
}

/** A figure's median against an absolute limit. */
export function limit(label: string, f: Figure, comparison: '>=' | '<=', target: number): Ratio {
  const value = f.median;
  return {
    id: `${f.workload} ${label}`,
    workload: f.workload,
    label,
    numerator: f.id,
    value,
    target,
    comparison,
    met: comparison === '>=' ? value >= target : value <= target,
  };
}

/** An empty result for workload `id`. */
export function emptyResult(id: string, title: string): WorkloadResult {
  return { id, title, figures: [], ratios: [], skipped: [], wallSeconds: 0 };
}
