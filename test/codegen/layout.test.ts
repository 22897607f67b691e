import { describe, expect, it } from 'vitest';
import { fill, group, indent, line, print, softline } from '../../codegen/layout.js';
import { importDecl, jsonLiteral, tsString, typeAlias, typeRef } from '../../codegen/syntax.js';

describe('print', () => {
  const list = (items: string[]) =>
    group([
      '[',
      indent([softline, items.flatMap((x, i) => (i > 0 ? [',', line, x] : [x]))]),
      softline,
      ']',
    ]);

  it('keeps a group flat when it fits and breaks it when it does not', () => {
    expect(print(list(['a', 'b']), 20)).toBe('[a, b]\n');
    expect(print(list(['aaaaaa', 'bbbbbb', 'cccccc']), 20)).toBe(
      '[\n  aaaaaa,\n  bbbbbb,\n  cccccc\n]\n',
    );
  });

  it('counts the text after a group up to the next break', () => {
    expect(print([list(['a', 'b']), ' as const;'], 12)).toBe('[\n  a,\n  b\n] as const;\n');
    expect(print([list(['a', 'b']), ' as const;'], 16)).toBe('[a, b] as const;\n');
  });

  it('fills as many items per line as fit', () => {
    const parts = ['1,', line, '2,', line, '3,', line, '4'];
    const doc = group(['[', indent([softline, fill(parts)]), softline, ']']);
    expect(print(doc, 10)).toBe('[\n  1, 2, 3,\n  4\n]\n');
    expect(print(doc, 9)).toBe('[\n  1, 2,\n  3, 4\n]\n');
    expect(print(doc, 12)).toBe('[1, 2, 3, 4]\n');
  });
});

describe('syntax', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", '"it\'s"'],
    ['say "hi"', '\'say "hi"\''],
    ['both \' and " "', "'both \\' and \" \"'"],
    ['tab\tnew\nline\\', "'tab\\tnew\\nline\\\\'"],
  ])('tsString(%j) is %s', (input, expected) => {
    expect(tsString(input)).toBe(expected);
    // The literal evaluates back to the input.
    expect(new Function(`return ${expected};`)()).toBe(input);
  });

  it('breaks a long union one member per line', () => {
    const members = ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc'].map(tsString);
    expect(print(typeAlias('T', members), 30)).toBe(
      "export type T =\n  | 'aaaaaaaaaa'\n  | 'bbbbbbbbbb'\n  | 'cccccccccc';\n",
    );
    expect(print(typeAlias('T', members), 100)).toBe(
      "export type T = 'aaaaaaaaaa' | 'bbbbbbbbbb' | 'cccccccccc';\n",
    );
  });

  it('breaks type arguments but never a single simple one', () => {
    expect(print(typeRef('Uuid', ["'A_Very_Long_Table_Name'"]), 10)).toBe(
      "Uuid<'A_Very_Long_Table_Name'>\n",
    );
    expect(print(typeRef('Record', ['KKKKKKKK', 'VVVVVVVV']), 20)).toBe(
      'Record<\n  KKKKKKKK,\n  VVVVVVVV\n>\n',
    );
  });

  it('expands objects to the requested depth and keeps deeper ones flat when they fit', () => {
    expect(print(jsonLiteral({ a: { b: 1, c: ['x', 'y'] } }, 1), 100)).toBe(
      "{\n  a: { b: 1, c: ['x', 'y'] },\n}\n",
    );
  });

  it('sorts import names naturally, with inline type markers', () => {
    expect(
      print(
        importDecl('./m.js', [
          { name: 'AclUpdate', typeOnly: true },
          { name: 'AclTable', typeOnly: false },
          { name: 'Acl', typeOnly: true },
        ]),
      ),
    ).toBe("import { type Acl, AclTable, type AclUpdate } from './m.js';\n");
    expect(print(importDecl('x', [{ name: 'Uuid', typeOnly: true }]))).toBe(
      "import type { Uuid } from 'x';\n",
    );
  });
});
