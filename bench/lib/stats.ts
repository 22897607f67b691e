/**
 * Summaries of repeated measurements: every sample is kept, the median is
 * what tables and ratios use.
 * @module
 */

/** The median of `xs` (mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Run `fn` `times` times in sequence and return its results in order. */
export async function repeat<T>(times: number, fn: (rep: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < times; i++) out.push(await fn(i));
  return out;
}
