/**
 * Line diffs in unified format (`---`/`+++` headers, `@@` hunks with three
 * lines of context), for `ovnkit-codegen --check`.
 * @module
 */

/** One edit of a line diff. */
type Edit = { readonly op: ' ' | '-' | '+'; readonly text: string };

/** Beyond this many differing lines, a diff shows the whole file replaced. */
const MAX_EDIT_DISTANCE = 4000;

/** Split text into lines, without the final empty line of a trailing newline. */
function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

/** Myers' O(ND) shortest edit script from `a` to `b`. */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    v = next;
  }
  if (!found) {
    return [
      ...a.map((text) => ({ op: '-' as const, text })),
      ...b.map((text) => ({ op: '+' as const, text })),
    ];
  }
  // Walk the trace back from (n, m).
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK =
      k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      edits.push({ op: ' ', text: a[x - 1]! });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) edits.push({ op: '+', text: b[y - 1]! });
      else edits.push({ op: '-', text: a[x - 1]! });
      x = prevX;
      y = prevY;
    }
  }
  return edits.reverse();
}

/**
 * A unified diff from `before` to `after`, or `''` when they are equal.
 * @param fromName - the `---` name (e.g. `a/acl.ts` or `/dev/null`).
 * @param toName - the `+++` name.
 * @param context - lines of context around each change.
 */
export function unifiedDiff(
  fromName: string,
  toName: string,
  before: string,
  after: string,
  context = 3,
): string {
  if (before === after) return '';
  const a = lines(before);
  const b = lines(after);
  const edits = editScript(a, b);
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  // Line numbers (1-based) of each edit in a and b.
  const posA: number[] = [];
  const posB: number[] = [];
  let la = 1;
  let lb = 1;
  for (const e of edits) {
    posA.push(la);
    posB.push(lb);
    if (e.op !== '+') la++;
    if (e.op !== '-') lb++;
  }
  let i = 0;
  while (i < edits.length) {
    if (edits[i]!.op === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while the next change is within 2 × context lines.
    for (;;) {
      while (end < edits.length && edits[end]!.op !== ' ') end++;
      let j = end;
      while (j < edits.length && edits[j]!.op === ' ' && j - end < 2 * context) j++;
      if (j < edits.length && edits[j]!.op !== ' ') end = j;
      else break;
    }
    const stop = Math.min(edits.length, end + context);
    const hunk = edits.slice(start, stop);
    const countA = hunk.filter((e) => e.op !== '+').length;
    const countB = hunk.filter((e) => e.op !== '-').length;
    const fromA = countA === 0 ? posA[start]! - 1 : posA[start]!;
    const fromB = countB === 0 ? posB[start]! - 1 : posB[start]!;
    out.push(`@@ -${fromA},${countA} +${fromB},${countB} @@`);
    for (const e of hunk) out.push(`${e.op}${e.text}`);
    i = stop;
  }
  if (!before.endsWith('\n') !== !after.endsWith('\n')) out.push('\\ No newline at end of file');
  return `${out.join('\n')}\n`;
}
