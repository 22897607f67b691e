/**
 * The plain-text (Markdown) table of a run's figures and ratios.
 * @module
 */

import type { WorkloadResult } from './types.js';

function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 100) return Math.round(x).toLocaleString('en-US');
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

/** Render the figures, then the ratios, then the skipped rows, as Markdown tables. */
export function renderTable(results: readonly WorkloadResult[]): string {
  const lines: string[] = [];
  lines.push('| Workload | Subject | Median | Unit | Samples |');
  lines.push('|---|---|---:|---|---|');
  for (const r of results) {
    for (const f of r.figures) {
      const subject = f.note ? `${f.subject} (${f.note})` : f.subject;
      lines.push(
        `| ${f.id} | ${subject} | ${num(f.median)} | ${f.unit} | ${f.samples.map(num).join(', ')} |`,
      );
    }
    for (const s of r.skipped) {
      lines.push(`| ${s.workload} | ${s.subject} | skipped | | ${s.reason} |`);
    }
  }
  lines.push('');
  lines.push('| Ratio | Value | Target | Met |');
  lines.push('|---|---:|---:|---|');
  for (const r of results) {
    for (const x of r.ratios) {
      const unitless = x.denominator !== undefined ? '×' : '';
      lines.push(
        `| ${x.id} | ${num(x.value)}${unitless} | ${x.comparison} ${num(x.target)}${unitless} | ${x.met ? 'met' : 'MISSED'} |`,
      );
    }
  }
  return lines.join('\n');
}
