/**
 * The import declarations of generated files, grouped by module and sorted
 * the way the repository's import organizer (Biome's) expects, so that the
 * generated files pass its check unchanged.
 * @module
 */

import { fits, INDENT, tsString } from './literals.js';
import { naturalCompare } from './names.js';
import { type ImportDeclarationStructure, StructureKind } from './ts-morph.js';

/** One named import: a value, or a type (imported with `type`). */
export interface ImportName {
  readonly name: string;
  readonly typeOnly: boolean;
}

/** The characters of a plain module specifier. */
const SPECIFIER_CHAR = /[A-Za-z0-9@#._~+/-]/;

/**
 * Why `spec` is not a plain module specifier (such as a package name with an
 * optional subpath, `#name`, or a `./` or `../` path, made of letters, digits
 * and `@ # . _ ~ + / -`), or undefined when it is one. Generated code imports
 * only plain specifiers, so that nothing given as one is more than a path.
 */
export function specifierProblem(spec: string): string | undefined {
  if (spec === '') return 'it is empty';
  const bad = [...spec].find((c) => !SPECIFIER_CHAR.test(c));
  if (bad !== undefined) {
    const code = `U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `it holds ${JSON.stringify(bad)} (${code}); a module specifier is made of letters, digits and @ # . _ ~ + / -`;
  }
  return undefined;
}

/**
 * Sort import or export sources as the import organizer does: packages, then
 * parent-relative paths, then `./` paths, each naturally.
 */
export function compareSources(a: string, b: string): number {
  const rank = (s: string): number => (s.startsWith('../') ? 1 : s.startsWith('./') ? 2 : 0);
  return rank(a) - rank(b) || naturalCompare(a, b);
}

/**
 * Import declarations for `(module, name)` pairs: one per module, modules and
 * names sorted, duplicates dropped; `import type { … }` when every name of a
 * module is a type, else inline `type` markers. A declaration that does not
 * fit on a line lists one name per line.
 */
export function importDeclarations(
  entries: readonly (readonly [string, ImportName])[],
): ImportDeclarationStructure[] {
  const byModule = new Map<string, ImportName[]>();
  for (const [from, name] of entries) {
    const list = byModule.get(from) ?? [];
    if (!list.some((n) => n.name === name.name)) list.push(name);
    byModule.set(from, list);
  }
  return [...byModule.keys()].sort(compareSources).map((moduleSpecifier) => {
    const names = [...byModule.get(moduleSpecifier)!].sort((a, b) =>
      naturalCompare(a.name, b.name),
    );
    const allTypes = names.every((n) => n.typeOnly);
    const specifiers = names.map((n) => (n.typeOnly && !allTypes ? `type ${n.name}` : n.name));
    const inline = `import ${allTypes ? 'type ' : ''}{ ${specifiers.join(', ')} } from ${tsString(moduleSpecifier)};`;
    return {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier,
      isTypeOnly: allTypes,
      namedImports: fits(0, inline.length)
        ? names.map((n) => ({ name: n.name, isTypeOnly: n.typeOnly && !allTypes }))
        : (writer) => {
            writer.write(`\n${specifiers.map((s) => `${INDENT}${s},\n`).join('')}`);
          },
    };
  });
}
