/**
 * A reader of the Prometheus text exposition format (version 0.0.4), for
 * the metrics tests: `# HELP` and `# TYPE` lines, and samples
 * `name{label="value",…} value` with the format's escapes (`\\`, `\"`,
 * `\n` in label values).
 */

/** One sample of a scrape. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed scrape: the samples in order, and each metric family's type. */
export interface Scrape {
  readonly samples: readonly Sample[];
  readonly types: ReadonlyMap<string, string>;
}

/** Parse a scrape. @throws Error naming the line when one is malformed. */
export function parseMetrics(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const [n, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const m = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (m !== null) types.set(m[1]!, m[2]!);
      else if (!/^# HELP \S+ /.test(line)) throw new Error(`line ${n + 1}: bad comment: ${line}`);
      continue;
    }
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (name === undefined) throw new Error(`line ${n + 1}: no metric name: ${line}`);
    let i = name.length;
    const labels: Record<string, string> = {};
    if (line[i] === '{') {
      i++;
      while (line[i] !== '}') {
        const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(i));
        if (label === null) throw new Error(`line ${n + 1}: bad label at ${i}: ${line}`);
        i += label[0].length;
        let value = '';
        for (;;) {
          const c = line[i++];
          if (c === undefined) throw new Error(`line ${n + 1}: unterminated label value`);
          if (c === '"') break;
          if (c === '\\') {
            const e = line[i++];
            value += e === 'n' ? '\n' : (e ?? '');
          } else value += c;
        }
        labels[label[1]!] = value;
        if (line[i] === ',') i++;
      }
      i++;
    }
    const rest = line.slice(i).trim().split(/\s+/);
    const text0 = rest[0] ?? '';
    const value =
      text0 === '+Inf' ? Number.POSITIVE_INFINITY : text0 === '-Inf' ? -Infinity : Number(text0);
    if (text0 === '' || (Number.isNaN(value) && text0 !== 'NaN')) {
      throw new Error(`line ${n + 1}: bad value: ${line}`);
    }
    samples.push({ name, labels, value });
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
