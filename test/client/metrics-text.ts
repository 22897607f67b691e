/**
 * A reader of the Prometheus text exposition format (version 0.0.4), for
 * the metrics tests: `# HELP` and `# TYPE` lines, and samples
 * `name{label="value",…} value` with the format's escapes (`\\`, `\"`,
 * `\n` in label values), checked against the format's rules.
 */

import { expect } from 'vitest';

/** One sample of a scrape. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A metric family: its type, help, and samples (grouped, as the format requires). */
export interface Family {
  readonly type: string;
  readonly help: string | undefined;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * A sample value as Prometheus reads it (Go's `strconv.ParseFloat`): a
 * decimal float, or `NaN` / `Inf` / `Infinity` with an optional sign, in any
 * case (prom-client prints NaN as `Nan`: `nodejs_eventloop_lag_mean_seconds`
 * is NaN when a scrape comes within the lag monitor's 10 ms resolution of the
 * previous one, which reset it).
 */
function parseValue(text: string): number {
  if (/^nan$/i.test(text)) return Number.NaN;
  const inf = /^([-+]?)inf(inity)?$/i.exec(text);
  if (inf !== null) return inf[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value ${text}`);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (eq < 0 || !LABEL.test(name)) throw new Error(`bad label name in ${line}`);
    if (name in labels) throw new Error(`label ${name} twice in ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`unquoted label value in ${line}`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`bad escape \\${next} in ${line}`);
      } else value += text[j];
    }
    if (text[j] !== '"') throw new Error(`unterminated label value in ${line}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (i < text.length) throw new Error(`expected , between labels in ${line}`);
  }
  return labels;
}

/**
 * Parse the text exposition format, checking its rules (names, escapes, a
 * family's `# TYPE` before its samples, samples grouped by family, counters
 * ending in `_total`, histogram buckets rising to `+Inf` and equal to
 * `_count`); families by name, in the order of the text.
 */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const done = new Set<string>();
  let current: string | undefined;
  const familyOf = (sample: string) => {
    for (const suffix of ['_bucket', '_sum', '_count', '']) {
      const base = suffix === '' ? sample : sample.slice(0, -suffix.length);
      if (sample.endsWith(suffix) && families.has(base)) {
        const t = families.get(base)!.type;
        if (suffix === '' || t === 'histogram' || t === 'summary') return base;
      }
    }
    throw new Error(`sample ${sample} has no # TYPE before it`);
  };
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta !== null) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name!)) throw new Error(`bad metric name ${name}`);
      const f = families.get(name!);
      if (kind === 'TYPE') {
        if (f?.type !== undefined && f.type !== 'untyped')
          throw new Error(`second TYPE of ${name}`);
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest!))
          throw new Error(`bad type ${rest}`);
        if (f !== undefined && f.samples.length > 0)
          throw new Error(`TYPE of ${name} after samples`);
        families.set(name!, { type: rest!, help: f?.help, samples: f?.samples ?? [] });
      } else {
        families.set(name!, { type: f?.type ?? 'untyped', help: rest, samples: f?.samples ?? [] });
      }
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (m === null) throw new Error(`bad sample line ${line}`);
    const family = familyOf(m[1]!);
    if (current !== family) {
      if (done.has(family)) throw new Error(`samples of ${family} are not grouped`);
      if (current !== undefined) done.add(current);
      current = family;
    }
    families.get(family)!.samples.push({
      name: m[1]!,
      labels: parseLabels(m[2] ?? '', line),
      value: parseValue(m[3]!),
    });
  }
  for (const [name, f] of families) {
    if (f.type === 'counter') for (const s of f.samples) expect(s.name).toBe(name);
    if (f.type === 'counter') expect(name.endsWith('_total'), name).toBe(true);
    if (f.type === 'histogram') {
      const series = new Map<string, Sample[]>();
      for (const s of f.samples.filter((x) => x.name === `${name}_bucket`)) {
        const { le, ...rest } = s.labels;
        expect(le, name).toBeDefined();
        const key = JSON.stringify(rest);
        series.set(key, [...(series.get(key) ?? []), s]);
      }
      for (const [key, buckets] of series) {
        for (let i = 1; i < buckets.length; i++)
          expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
        expect(buckets.at(-1)!.labels['le']).toBe('+Inf');
        const count = f.samples.find(
          (x) => x.name === `${name}_count` && JSON.stringify(x.labels) === key,
        );
        expect(count?.value, `${name}_count ${key}`).toBe(buckets.at(-1)!.value);
      }
    }
  }
  return families;
}

/** A parsed scrape: the samples in order, and each metric family's type. */
export interface Scrape {
  readonly samples: readonly Sample[];
  readonly types: ReadonlyMap<string, string>;
}

/** Parse a scrape with {@link parseExposition}'s rules. @throws Error naming what is malformed. */
export function parseMetrics(text: string): Scrape {
  const families = parseExposition(text);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const [name, f] of families) {
    types.set(name, f.type);
    samples.push(...f.samples);
  }
  return { samples, types };
}

/**
 * The value of the sample `name` whose labels are exactly `labels`, or
 * undefined when the scrape has none.
 */
export function sampleValue(
  scrape: Scrape,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  const want = Object.entries(labels);
  for (const s of scrape.samples) {
    if (s.name !== name) continue;
    const keys = Object.keys(s.labels);
    if (keys.length !== want.length) continue;
    if (want.every(([k, v]) => s.labels[k] === v)) return s.value;
  }
  return undefined;
}

/** Every sample named `name`, as `labels → value` lines sorted (for exact comparisons). */
export function series(scrape: Scrape, name: string): string[] {
  return scrape.samples
    .filter((s) => s.name === name)
    .map(
      (s) =>
        `${Object.entries(s.labels)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => `${k}=${v}`)
          .join(',')} ${s.value}`,
    )
    .sort();
}
