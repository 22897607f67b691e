import { StructureKind, VariableDeclarationKind } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { SourceEmitter } from '../../codegen/emit.js';
import { importDeclarations } from '../../codegen/imports.js';
import { blockComment, DOC_WIDTH, docs } from '../../codegen/tsdoc.js';

describe('SourceEmitter', () => {
  it('prints structures with single quotes and formats them with 2-space indentation', () => {
    const emitter = new SourceEmitter();
    const text = emitter.emit('a.ts', [
      {
        kind: StructureKind.ImportDeclaration,
        isTypeOnly: true,
        namedImports: ['Uuid'],
        moduleSpecifier: './uuid.js',
      },
      {
        kind: StructureKind.Interface,
        isExported: true,
        name: 'Row',
        docs: ['A row.'],
        properties: [
          { name: 'a', isReadonly: true, type: 'Uuid<"T">', docs: ['\nFirst.\n\nSecond.'] },
          { name: 'b', isReadonly: true, type: 'Readonly<\n      Record<string,string>\n>' },
        ],
      },
      {
        kind: StructureKind.VariableStatement,
        isExported: true,
        declarationKind: VariableDeclarationKind.Const,
        declarations: [{ name: 'X', initializer: '{\n        a:    [1,2],\n  } as const' }],
      },
    ]);
    expect(text).toBe(
      [
        "import type { Uuid } from './uuid.js';",
        '',
        '/** A row. */',
        'export interface Row {',
        '  /**',
        '   * First.',
        '   *',
        '   * Second.',
        '   */',
        '  readonly a: Uuid<"T">;',
        '  readonly b: Readonly<',
        '    Record<string, string>',
        '  >;',
        '}',
        '',
        'export const X = {',
        '  a: [1, 2],',
        '} as const;',
        '',
      ].join('\n'),
    );
  });

  it('formatting its own output again changes nothing', () => {
    const emitter = new SourceEmitter();
    const once = emitter.emit('a.ts', [
      "const  x = { a : 1,\n      b: [ 'x' ,'y' ] };",
      'export interface I {\n        readonly x:number}',
    ]);
    expect(once).toBe(
      "const x = {\n  a: 1,\n  b: ['x', 'y']\n};\nexport interface I {\n  readonly x: number;\n}\n",
    );
    expect(emitter.emit('a.ts', [once])).toBe(once);
  });

  it('emits any number of files through one project, each independently', () => {
    const emitter = new SourceEmitter();
    const a = emitter.emit('a.ts', ['export const a = 1;']);
    const b = emitter.emit('b.ts', ['export const b = 2;']);
    // The same name again, with text the formatter must change: formatted as itself.
    expect(emitter.emit('a.ts', ['export  const a =3;'])).toBe('export const a = 3;\n');
    expect(emitter.emit('a.ts', ['export const  b= [ 1 ];'])).toBe('export const b = [1];\n');
    expect([a, b]).toEqual(['export const a = 1;\n', 'export const b = 2;\n']);
  });
});

describe('docs', () => {
  it('is a one-line comment for one short line and a block otherwise', () => {
    expect(docs([])).toEqual([]);
    expect(docs(['', 'Short.', ''])).toEqual(['Short.']);
    expect(docs(['x'.repeat(DOC_WIDTH + 1)])).toEqual([`\n${'x'.repeat(DOC_WIDTH + 1)}`]);
    expect(docs(['One.', '', 'Two.  '])).toEqual(['\nOne.\n\nTwo.']);
  });

  it('escapes */ so the text cannot end the comment', () => {
    expect(docs(["'*/ closes'"])).toEqual(["'*\\/ closes'"]);
    expect(blockComment(['a */ b', '', '@module'])).toBe('/**\n * a *\\/ b\n *\n * @module\n */');
  });

  it('prints through ts-morph as the comment it describes', () => {
    const text = new SourceEmitter().emit('a.ts', [
      {
        kind: StructureKind.TypeAlias,
        name: 'T',
        type: 'string',
        docs: docs(['Line one of the comment.', '', '- a list item', '  continued']),
      },
    ]);
    expect(text).toBe(
      '/**\n * Line one of the comment.\n *\n * - a list item\n *   continued\n */\ntype T = string;\n',
    );
  });
});

describe('importDeclarations', () => {
  const emit = (decls: ReturnType<typeof importDeclarations>) =>
    new SourceEmitter().emit('a.ts', decls);

  it('groups by module, sorts modules and names, and marks types', () => {
    const text = emit(
      importDeclarations([
        ['./m.js', { name: 'AclUpdate', typeOnly: true }],
        ['../x/uuid.js', { name: 'Uuid', typeOnly: true }],
        ['./m.js', { name: 'AclTable', typeOnly: false }],
        ['./m.js', { name: 'Acl', typeOnly: true }],
        ['pkg', { name: 'z', typeOnly: false }],
        ['./m.js', { name: 'Acl', typeOnly: true }],
      ]),
    );
    expect(text).toBe(
      [
        "import { z } from 'pkg';",
        "import type { Uuid } from '../x/uuid.js';",
        "import { type Acl, AclTable, type AclUpdate } from './m.js';",
        '',
      ].join('\n'),
    );
  });

  it('lists the names one per line when the declaration does not fit', () => {
    const names = ['LogicalSwitchPortHealthCheck', 'LogicalSwitchPortHealthCheckInsert'];
    const text = emit(
      importDeclarations([
        ...names.map(
          (name) => ['./logical-switch-port-health-check.js', { name, typeOnly: true }] as const,
        ),
        [
          './logical-switch-port-health-check.js',
          { name: 'LogicalSwitchPortHealthCheckTable', typeOnly: false },
        ],
      ]),
    );
    expect(text).toBe(
      [
        'import {',
        '  type LogicalSwitchPortHealthCheck,',
        '  type LogicalSwitchPortHealthCheckInsert,',
        '  LogicalSwitchPortHealthCheckTable,',
        "} from './logical-switch-port-health-check.js';",
        '',
      ].join('\n'),
    );
  });
});
