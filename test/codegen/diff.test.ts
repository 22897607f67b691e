import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../codegen/diff.js';

/** Apply a unified diff (as produced by unifiedDiff) to `before`. */
function applyPatch(before: string, patch: string): string {
  const src = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let next = 0; // index into src of the next unconsumed line
  const lines = patch.replace(/\n$/, '').split('\n').slice(2);
  for (let i = 0; i < lines.length; ) {
    const m = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(lines[i]!);
    if (m === null) throw new Error(`bad hunk header ${lines[i]}`);
    const start = Number(m[2]) === 0 ? Number(m[1]) : Number(m[1]) - 1;
    while (next < start) out.push(src[next++]!);
    i++;
    while (i < lines.length && !lines[i]!.startsWith('@@')) {
      const l = lines[i]!;
      if (l.startsWith(' ')) {
        expect(src[next]).toBe(l.slice(1));
        out.push(src[next++]!);
      } else if (l.startsWith('-')) {
        expect(src[next]).toBe(l.slice(1));
        next++;
      } else if (l.startsWith('+')) out.push(l.slice(1));
      i++;
    }
  }
  while (next < src.length) out.push(src[next++]!);
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

const text = fc
  .array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 40 })
  .map((ls) => (ls.length === 0 ? '' : `${ls.join('\n')}\n`));

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a', 'b', 'x\ny\n', 'x\ny\n')).toBe('');
  });

  it('shows a changed line with three lines of context', () => {
    const before = '1\n2\n3\n4\n5\n6\n7\n8\n9\n';
    const after = '1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n';
    expect(unifiedDiff('a/f', 'b/f', before, after)).toBe(
      '--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n',
    );
  });

  it('splits distant changes into separate hunks', () => {
    const before = Array.from({ length: 30 }, (_, i) => `${i}`).join('\n') + '\n';
    const after = before.replace('\n3\n', '\nthree\n').replace('\n25\n', '\ntwenty-five\n');
    const diff = unifiedDiff('a', 'b', before, after);
    expect(diff.match(/^@@/gm)).toHaveLength(2);
  });

  it('applying the diff to the old text gives the new text (property)', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const diff = unifiedDiff('a', 'b', before, after);
        if (before === after) return diff === '';
        expect(applyPatch(before, diff)).toBe(after);
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
