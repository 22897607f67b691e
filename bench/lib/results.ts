/**
 * Builders for {@link Figure}s and {@link Ratio}s.
 * @module
 */

import { median } from './stats.js';
import type { Figure, PairedRatio, Ratio, WorkloadResult } from './types.js';

/** Make a figure from its samples. */
export function figure(
  id: string,
  subject: string,
  unit: string,
  samples: readonly number[],
  options: {
    readonly higherIsBetter?: boolean;
    readonly note?: string | undefined;
    readonly cpuOf?: string | undefined;
  } = {},
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
    ...(options.cpuOf !== undefined ? { cpuOf: options.cpuOf } : {}),
  };
}

/**
 * The client-CPU figure of `of` (µs of user + system time of the client
 * process per `op`, sample for sample with `of`), or `undefined` without
 * samples.
 */
export function cpuFigure(
  of: Figure,
  samples: readonly number[] | undefined,
  op = 'LSP',
): Figure | undefined {
  if (samples === undefined || samples.length === 0 || samples.some((x) => !Number.isFinite(x)))
    return undefined;
  const base = of.id.replace(/\.(time|heap)$/, '');
  return figure(`${base}.cpu`, `${of.subject}: client CPU`, `µs/${op}`, samples, {
    higherIsBetter: false,
    cpuOf: of.id,
  });
}

/**
 * The paired median of `num ÷ den` (the ratio of the medians when they are
 * not paired), as text with two decimals and `×`: for ratio notes.
 */
export function times(num: Figure, den: Figure): string {
  return `${(pairedRatio(num, den)?.median ?? num.median / den.median).toFixed(2)}×`;
}

/** `"a vs b µs/LSP"` for two client-CPU figures (medians), or `undefined` when one is missing. */
export function cpuVs(figures: readonly Figure[], a: Figure, b: Figure): string | undefined {
  const ca = figures.find((f) => f.cpuOf === a.id);
  const cb = figures.find((f) => f.cpuOf === b.id);
  if (!ca || !cb) return undefined;
  return `client CPU ${ca.median.toFixed(1)} vs ${cb.median.toFixed(1)} ${ca.unit}`;
}

/** The per-repetition ratios of two figures with one sample per repetition each. */
export function pairedRatio(num: Figure, den: Figure): PairedRatio | undefined {
  const n = num.samples.length;
  if (n === 0 || den.samples.length !== n) return undefined;
  const samples = num.samples.map((x, i) => x / den.samples[i]!);
  return {
    samples,
    median: median(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
  };
}

/** The ratio of two figures' medians against a target. */
export function ratio(
  label: string,
  num: Figure,
  den: Figure,
  comparison: '>=' | '<=',
  target: number,
  note?: string,
): Ratio {
  const r = contextRatio(label, num, den, note);
  const judged = r.paired?.median ?? r.value;
  return {
    ...r,
    target,
    comparison,
    met: comparison === '>=' ? judged >= target : judged <= target,
  };
}

/** The ratio of two figures (paired per repetition where they can be), shown without a target. */
export function contextRatio(label: string, num: Figure, den: Figure, note?: string): Ratio {
  const paired = pairedRatio(num, den);
  return {
    id: `${num.workload} ${label}`,
    workload: num.workload,
    label,
    numerator: num.id,
    denominator: den.id,
    value: num.median / den.median,
    ...(paired !== undefined ? { paired } : {}),
    ...(note !== undefined ? { note } : {}),
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
