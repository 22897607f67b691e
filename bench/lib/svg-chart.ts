/**
 * Small SVG line charts for bench results, written by hand (no dependency):
 * panels stacked vertically, each with a logarithmic x axis (sizes), a
 * linear y axis from 0, one polyline per series and a legend.
 * @module
 */

/** One curve: a label and its points. */
export interface ChartLine {
  readonly label: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
  /** Drawn dashed (e.g. the reference server). */
  readonly dashed?: boolean;
}

/** One chart. */
export interface ChartPanel {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly lines: readonly ChartLine[];
}

const WIDTH = 820;
const PANEL_HEIGHT = 340;
const MARGIN = { left: 70, right: 270, top: 40, bottom: 50 };
const COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#8c564b',
  '#e377c2',
  '#17becf',
];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Round numbers for y ticks: 0, step, 2·step, … up to at least `max`. */
function yTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** `10k`, `500k`, `1M`. */
export function sizeLabel(n: number): string {
  if (n >= 1e6 && n % 1e5 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 100 === 0) return `${n / 1e3}k`;
  return String(n);
}

function tickLabel(v: number): string {
  if (v >= 1e4) return `${v / 1e3}k`;
  return String(v);
}

function panel(p: ChartPanel, top: number): string {
  const xs = [...new Set(p.lines.flatMap((l) => l.points.map((q) => q.x)))].sort((a, b) => a - b);
  const ys = p.lines.flatMap((l) => l.points.map((q) => q.y)).filter(Number.isFinite);
  const ticks = yTicks(Math.max(0, ...ys));
  const yMax = ticks[ticks.length - 1] ?? 1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x0 = MARGIN.left;
  const y0 = top + MARGIN.top;
  const lo = Math.log10(xs[0] ?? 1);
  const hi = Math.log10(xs[xs.length - 1] ?? 10);
  const span = hi > lo ? hi - lo : 1;
  const px = (x: number) => x0 + ((Math.log10(x) - lo) / span) * plotW;
  const py = (y: number) => y0 + plotH - (y / yMax) * plotH;
  const out: string[] = [];
  out.push(
    `<text x="${x0}" y="${top + 22}" font-size="15" font-weight="bold">${esc(p.title)}</text>`,
  );
  for (const t of ticks) {
    const y = py(t).toFixed(1);
    out.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(
      `<text x="${x0 - 6}" y="${y}" font-size="11" text-anchor="end" dominant-baseline="middle">${tickLabel(t)}</text>`,
    );
  }
  for (const x of xs) {
    const X = px(x).toFixed(1);
    out.push(`<line x1="${X}" x2="${X}" y1="${y0}" y2="${y0 + plotH}" stroke="#eee"/>`);
    out.push(
      `<text x="${X}" y="${y0 + plotH + 16}" font-size="11" text-anchor="middle">${sizeLabel(x)}</text>`,
    );
  }
  out.push(
    `<rect x="${x0}" y="${y0}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`,
  );
  out.push(
    `<text x="${x0 + plotW / 2}" y="${y0 + plotH + 36}" font-size="12" text-anchor="middle">${esc(p.xLabel)}</text>`,
  );
  const yl = y0 + plotH / 2;
  out.push(
    `<text x="${x0 - 52}" y="${yl}" font-size="12" text-anchor="middle" transform="rotate(-90 ${x0 - 52} ${yl})">${esc(p.yLabel)}</text>`,
  );
  p.lines.forEach((l, i) => {
    const color = COLORS[i % COLORS.length] as string;
    const pts = l.points
      .filter((q) => Number.isFinite(q.y))
      .map((q) => `${px(q.x).toFixed(1)},${py(q.y).toFixed(1)}`);
    const dash = l.dashed === true ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<polyline points="${pts.join(' ')}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`,
    );
    for (const pt of pts) {
      const [cx, cy] = pt.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${color}"/>`);
    }
    const ly = y0 + 8 + i * 20;
    const lx = x0 + plotW + 16;
    out.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`,
    );
    out.push(
      `<text x="${lx + 30}" y="${ly}" font-size="11" dominant-baseline="middle">${esc(l.label)}</text>`,
    );
  });
  return out.join('\n');
}

/** An SVG document with `panels` stacked vertically. */
export function renderSvg(panels: readonly ChartPanel[], caption?: string): string {
  const captionH = caption === undefined ? 0 : 24;
  const height = panels.length * PANEL_HEIGHT + captionH;
  const body = panels.map((p, i) => panel(p, captionH + i * PANEL_HEIGHT)).join('\n');
  const cap =
    caption === undefined
      ? ''
      : `<text x="${MARGIN.left}" y="16" font-size="11" fill="#555">${esc(caption)}</text>\n`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n${cap}${body}\n</svg>\n`
  );
}
