/**
 * The `@example` blocks of the sources' doc comments, and a type checker for
 * them: each fenced block becomes a module of its own that imports the
 * package by its public names (`ovnkit`, `ovnkit/nb`, …), mapped to the
 * source entry points named by `package.json` `exports`.
 */

import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** One fenced code block of an `@example` tag. */
export interface DocExample {
  /** The source file, relative to the repository. */
  readonly file: string;
  /** 1-based line of the block's first code line in `file`. */
  readonly line: number;
  /** The documented declaration (`Class.member` for members), or `module` for a file's doc comment. */
  readonly symbol: string;
  /** The code. */
  readonly code: string;
}

function sourceFiles(dir: string, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
}

const DECLARATION =
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|const|let|enum|namespace)\s+([A-Za-z_$][\w$]*)/;
const MEMBER =
  /^\s*(?:(?:public|protected|private|static|readonly|override|abstract|async|get|set)\s+)*\*?([A-Za-z_$][\w$]*)\s*[<(:=?]/;

/** The name a doc comment (`comment`) documents, from the code that follows it (`after`). */
function documented(comment: string, after: string): string {
  if (/@module\b/.test(comment)) return 'module';
  const next = after.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('@')) ?? '';
  return DECLARATION.exec(next)?.[1] ?? MEMBER.exec(next)?.[1] ?? '(anonymous)';
}

/** Every `@example` block of `file` (absolute path). */
export function examplesOf(file: string, text = readFileSync(file, 'utf8')): DocExample[] {
  const out: DocExample[] = [];
  const rel = relative(REPO, file);
  for (const m of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const comment = m[0];
    const start = m.index;
    const after = text.slice(start + comment.length, start + comment.length + 400);
    let symbol = documented(comment, after);
    // Members are named after the class or interface declared last before them.
    const before = text.slice(0, start);
    const container = [
      ...before.matchAll(/^export\s+(?:abstract\s+)?(?:class|interface)\s+(\w+)/gm),
    ].at(-1);
    if (
      symbol !== 'module' &&
      !DECLARATION.test(after.split('\n').find((l) => l.trim() !== '') ?? '') &&
      container
    ) {
      symbol = `${container[1]}.${symbol}`;
    }
    const lines = comment.split('\n');
    const firstLine = before.split('\n').length;
    let inExample = false;
    let fence: string[] | undefined;
    let fenceLine = 0;
    lines.forEach((raw, i) => {
      const l = raw
        .replace(/^\s*\/?\*\*?\/?/, '')
        .replace(/^ /, '')
        .replace(/\*\/\s*$/, '');
      if (fence === undefined && /^@\w+/.test(l.trim())) inExample = /^@example\b/.test(l.trim());
      if (!inExample) return;
      if (/^\s*```/.test(l)) {
        if (fence === undefined) {
          fence = [];
          fenceLine = firstLine + i + 1;
        } else {
          out.push({ file: rel, line: fenceLine, symbol, code: `${fence.join('\n')}\n` });
          fence = undefined;
        }
      } else if (fence !== undefined) {
        fence.push(l);
      }
    });
  }
  return out;
}

/** Every `@example` block of the package's sources (`src/` and `codegen/`). */
export function allExamples(): DocExample[] {
  const files: string[] = [];
  sourceFiles(join(REPO, 'src'), files);
  sourceFiles(join(REPO, 'codegen'), files);
  return files.flatMap((f) => examplesOf(f));
}

/** `ovnkit/...` → the source entry point, from `package.json` `exports`. */
export function entryPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [sub, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string' || target.types === undefined) continue;
    const source = target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
    paths[sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`] = [join(REPO, source)];
  }
  return paths;
}

/** A type error of an example. */
export interface ExampleError {
  readonly example: DocExample;
  /** `file:line symbol: message` with the line in the source file. */
  readonly message: string;
}

/** The file name an example is checked under. */
function exampleFileName(dir: string, e: DocExample, index: number): string {
  const base = `${e.file.replace(/[/.]/g, '_')}__${e.symbol.replace(/\W/g, '_')}__${index}.ts`;
  return join(dir, base);
}

/**
 * Type-check `examples` as modules written under `dir` (inside the
 * repository, so that `node_modules` resolves), with the repository's
 * compiler options plus `paths` for the package's public names.
 */
export function checkExamples(examples: readonly DocExample[], dir: string): ExampleError[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const byFile = new Map<string, DocExample>();
  examples.forEach((e, i) => {
    const name = exampleFileName(dir, e, i);
    // A block without imports or exports is still a module (top-level await works).
    const code = /^\s*(import|export)\b/m.test(e.code) ? e.code : `${e.code}export {};\n`;
    writeFileSync(name, code);
    byFile.set(name, e);
  });
  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    noUnusedLocals: false,
    paths: entryPaths(),
  };
  const program = ts.createProgram([...byFile.keys()], options);
  const errors: ExampleError[] = [];
  for (const [name, example] of byFile) {
    const sf = program.getSourceFile(name);
    if (sf === undefined) throw new Error(`${name} is not in the program`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(sf),
      ...program.getSemanticDiagnostics(sf),
    ];
    for (const d of diagnostics) {
      const { line } =
        d.start === undefined ? { line: 0 } : sf.getLineAndCharacterOfPosition(d.start);
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      errors.push({
        example,
        message: `${example.file}:${example.line + line} ${example.symbol} @example: TS${d.code} ${text}`,
      });
    }
  }
  return errors;
}
