/**
 * The repository's import graph, read with the TypeScript parser: every
 * relative `import`, `export … from` and `import()` (and every import of the
 * package's own entry points by name, e.g. `ovnkit/ovsdb`) of the `.ts` files under
 * some roots, each marked type-only or not. The layer test
 * (`test/architecture/layers.test.ts`) checks it against the layer rule, and
 * `vitest.unit.config.ts` uses it to find the tests that need no Open vSwitch.
 * @module
 */

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import of one file. */
export interface ImportEdge {
  /** Importing file, relative to the repository root (`src/client/client.ts`). */
  readonly from: string;
  /** Imported file, relative to the repository root, `.ts` resolved. */
  readonly to: string;
  /** True for `import type`/`export type` (and imports whose every name is `type`). */
  readonly typeOnly: boolean;
  /** The module specifier as written (`../client/client.js`, `ovnkit/nb`). */
  readonly specifier: string;
}

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The source file each of the package's own entry points (`ovnkit`,
 * `ovnkit/ovsdb`, …) resolves to in the repository (its `ovnkit-source`
 * export condition), so that an import by package name (as `codegen/` makes)
 * is an edge of the graph too.
 */
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | Record<string, string>>;
};

/** The package's own name (`ovnkit`). */
export const PACKAGE_NAME = PACKAGE.name;

const SELF_ENTRIES: ReadonlyMap<string, string> = (() => {
  const pkg = PACKAGE;
  const out = new Map<string, string>();
  for (const [key, target] of Object.entries(pkg.exports)) {
    const source = typeof target === 'string' ? undefined : target['ovnkit-source'];
    if (source !== undefined) out.set(join(pkg.name, key), relative(ROOT, join(ROOT, source)));
  }
  return out;
})();

function listTs(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) {
      continue;
    }
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listTs(path, out);
    else if (/\.(m?ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
}

/** Every `.ts` file under `roots` (relative to the repository root), sorted. */
export function sourceFiles(roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const root of roots) listTs(join(ROOT, root), out);
  return out.map((f) => relative(ROOT, f)).sort();
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false; // a side-effect import runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  if (bindings === undefined || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((e) => e.isTypeOnly)
  );
}

/**
 * The relative imports of one file (its path relative to the repository
 * root), and its imports of the package by name: an entry point's edge goes
 * to the entry's source file; any other `ovnkit/…` specifier (a path the
 * package does not export) gets an edge to the specifier itself, which no
 * layer owns. `as` reads the file as if it were at that path (fixtures).
 */
export function importsOf(file: string, as = file): ImportEdge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean): void => {
    const self = SELF_ENTRIES.get(specifier);
    if (self !== undefined) {
      edges.push({ from: as, to: self, typeOnly, specifier });
      return;
    }
    if (specifier === PACKAGE_NAME || specifier.startsWith(`${PACKAGE_NAME}/`)) {
      edges.push({ from: as, to: specifier, typeOnly, specifier });
      return;
    }
    if (!specifier.startsWith('.')) return;
    const target = relative(ROOT, resolve(ROOT, dirname(as), specifier)).replace(/\.js$/, '.ts');
    edges.push({ from: as, to: target, typeOnly, specifier });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, isTypeOnlyImport(node));
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, isTypeOnlyExport(node));
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0]!)
    ) {
      add((node.arguments[0] as ts.StringLiteral).text, false);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) add(arg.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

/** The import graph of every `.ts` file under `roots`. */
export function importGraph(roots: readonly string[]): Map<string, ImportEdge[]> {
  const graph = new Map<string, ImportEdge[]>();
  for (const file of sourceFiles(roots)) graph.set(file, importsOf(file));
  return graph;
}

/**
 * The strongly connected components of more than one file (or a file that
 * imports itself) over the edges `keep` selects: the import cycles.
 * Iterative Tarjan, so a long chain cannot overflow the stack.
 */
export function cycles(
  graph: ReadonlyMap<string, readonly ImportEdge[]>,
  keep: (edge: ImportEdge) => boolean = () => true,
): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const succ = (v: string): string[] =>
    (graph.get(v) ?? []).filter((e) => keep(e) && graph.has(e.to)).map((e) => e.to);
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { v: string; succ: string[]; i: number }[] = [];
    const open = (v: string): void => {
      index.set(v, next);
      low.set(v, next);
      next++;
      stack.push(v);
      onStack.add(v);
      work.push({ v, succ: succ(v), i: 0 });
    };
    open(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.succ.length) {
        const w = frame.succ[frame.i++]!;
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
      }
      if (low.get(frame.v) === index.get(frame.v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.v);
        const selfLoop = succ(frame.v).includes(frame.v);
        if (component.length > 1 || selfLoop) found.push(component.sort());
      }
    }
  }
  return found;
}

/** Every file reachable from `start` over the graph's edges (including `start`). */
export function closure(
  graph: ReadonlyMap<string, readonly ImportEdge[]>,
  start: string,
): Set<string> {
  const seen = new Set<string>([start]);
  const todo = [start];
  while (todo.length > 0) {
    for (const edge of graph.get(todo.pop()!) ?? []) {
      if (!seen.has(edge.to)) {
        seen.add(edge.to);
        todo.push(edge.to);
      }
    }
  }
  return seen;
}
