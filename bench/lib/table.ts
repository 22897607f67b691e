/**
 * The plain-text (Markdown) table of a run's figures and ratios.
 * @module
 */

import type { Figure, WorkloadResult } from './types.js';

function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 100) return Math.round(x).toLocaleString('en-US');
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

function load(xs: readonly number[] | undefined): string {
  return xs?.[0] === undefined ? '?' : xs[0].toFixed(1);
}

/** A workload's 1-minute load average at its start and end, e.g. `1.2 → 3.4`. */
export function loadSpan(r: WorkloadResult): string {
  return `${load(r.loadAverageStart)} → ${load(r.loadAverageEnd)}`;
}

/**
 * Render the figures (with the client CPU per operation of each subject that
 * reports it beside its row), then the ratios (paired per repetition where
 * both figures have one sample per repetition), then the skipped rows, as
 * Markdown tables.
 */
export function renderTable(results: readonly WorkloadResult[]): string {
  const lines: string[] = [];
  lines.push('| Workload | Subject | Median | Unit | Client CPU | Samples |');
  lines.push('|---|---|---:|---|---:|---|');
  for (const r of results) {
    const ids = new Set(r.figures.map((f) => f.id));
    const cpuOf = new Map<string, Figure>();
    for (const f of r.figures) if (f.cpuOf !== undefined && ids.has(f.cpuOf)) cpuOf.set(f.cpuOf, f);
    for (const f of r.figures) {
      if (f.cpuOf !== undefined && ids.has(f.cpuOf)) continue;
      const subject = f.note ? `${f.subject} (${f.note})` : f.subject;
      const c = cpuOf.get(f.id);
      const cpu = c ? `${num(c.median)} ${c.unit}` : '';
      lines.push(
        `| ${f.id} | ${subject} | ${num(f.median)} | ${f.unit} | ${cpu} | ${f.samples.map(num).join(', ')} |`,
      );
    }
    for (const s of r.skipped) {
      lines.push(`| ${s.workload} | ${s.subject} | skipped | | | ${s.reason} |`);
    }
  }
  lines.push('');
  lines.push('| Ratio | Paired median | Min–max | Of medians | Target | Met | Load | Note |');
  lines.push('|---|---:|---:|---:|---:|---|---|---|');
  for (const r of results) {
    for (const x of r.ratios) {
      const u = x.denominator !== undefined ? '×' : '';
      const p = x.paired;
      const paired = p ? `${num(p.median)}${u}` : '';
      const spread = p ? `${num(p.min)}–${num(p.max)}${u}` : '';
      const target = x.target === undefined ? '—' : `${x.comparison ?? ''} ${num(x.target)}${u}`;
      const met = x.met === undefined ? '' : x.met ? 'met' : 'MISSED';
      lines.push(
        `| ${x.id} | ${paired} | ${spread} | ${num(x.value)}${u} | ${target} | ` +
          `${met} | ${loadSpan(r)} | ${x.note ?? ''} |`,
      );
    }
  }
  return lines.join('\n');
}
