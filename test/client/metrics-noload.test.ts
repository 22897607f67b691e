/**
 * Metrics and tracing cost nothing when they are not asked for: a process
 * that imports every entry point of ovnkit and runs a server, a client, a
 * transaction and a reconnection without the `metrics` and `tracer` options
 * loads no file of prom-client or of any `@opentelemetry/` package (and
 * the same process with them does: the check sees them). And no source
 * file imports either package statically, types included, so that the
 * published declarations never name them.
 */

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/import-graph.js';

const OBSERVABILITY = /\/node_modules\/(prom-client|@opentelemetry\/[^/]+)\//;

async function loadedBy(...args: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=ovnkit-source', '--import', 'tsx', 'test/client/metrics-child.ts', ...args],
    { cwd: ROOT, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const { esm, cjs } = JSON.parse(stdout) as { esm: string[]; cjs: string[] };
  return [...esm, ...cjs];
}

function packagesOf(files: readonly string[]): string[] {
  const names = new Set<string>();
  for (const f of files) {
    const m = OBSERVABILITY.exec(f);
    if (m !== null) names.add(m[1]!);
  }
  return [...names].sort();
}

describe('without metrics and tracer', () => {
  it('nothing of prom-client or OpenTelemetry is loaded', async () => {
    const files = await loadedBy();
    // The check saw ovnkit's own files.
    expect(files.some((f) => f.endsWith('/src/client/client.ts'))).toBe(true);
    expect(files.some((f) => f.endsWith('/src/observability/prometheus.ts'))).toBe(true);
    expect(packagesOf(files)).toEqual([]);
  });

  it('with them, the same check sees prom-client and @opentelemetry/api', async () => {
    const names = packagesOf(await loadedBy('--observe'));
    expect(names).toContain('prom-client');
    expect(names).toContain('@opentelemetry/api');
  });
});

/** The module specifiers `file` names: imports, re-exports, `import()`, `require()`, `import('…')` types. */
function specifiersOf(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      out.push(node.argument.literal.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('the sources', () => {
  it('never import prom-client or @opentelemetry/* (not even types)', () => {
    const offenders: string[] = [];
    let files = 0;
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
          files++;
          for (const spec of specifiersOf(path)) {
            if (spec === 'prom-client' || spec.startsWith('@opentelemetry/')) {
              offenders.push(`${relative(ROOT, path)}: ${spec}`);
            }
          }
        }
      }
    };
    walk(join(ROOT, 'src'));
    expect(files).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
    // The check reads what it should: this test's own child does import them.
    expect(specifiersOf(join(ROOT, 'test/client/metrics-child.ts'))).toEqual(
      expect.arrayContaining(['prom-client', '@opentelemetry/api']),
    );
  });
});
