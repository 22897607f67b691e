/**
 * `ovnkit-codegen` against hostile input, run as the real CLI in a child
 * process: every input of the generator (the file names of `--schema`,
 * `--docs`, `--out` and the TLS flags, a `--remote` socket path, every other
 * option, the schema's name, version, checksum, table, column and enum names,
 * and the text and attributes of the docs XML) carrying line terminators (LF,
 * CR, U+2028, U+2029), quotes, `*​/`, `${`, backticks and backslashes.
 *
 * What is generated must type-check, importing it must run nothing
 * (`globalThis.PWNED` stays undefined in the process that imports it, which
 * also reads the hostile values back), and the payload may appear only in
 * string literals and comments, as TypeScript's scanner reads the files.
 * What cannot be generated safely (an import path or a model name that is not
 * plain, names the schema format forbids) is refused with an error naming the
 * option or the place, and nothing is written.
 *
 * The file names are chosen so that, had a path reached the header comment
 * as it is, the lines after it would be valid code that sets the flag.
 */

import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import {
  cli,
  ROOT,
  removeDir,
  repoRelative,
  scratchDir,
  spawnCli,
  xmlEscape,
} from '../codegen/helpers.js';

const run = promisify(execFile);

const TERMINATORS = [
  ['LF', '\n'],
  ['CR', '\r'],
  ['U+2028', '\u2028'],
  ['U+2029', '\u2029'],
] as const;
type Terminator = (typeof TERMINATORS)[number][1];

/** The code a payload tries to run. */
const CODE = 'globalThis.PWNED=1;';
/** Text that ends comments, strings and templates, then runs {@link CODE}. */
const text = (t: Terminator): string => `*/'"\`${t}${CODE}/* \${globalThis.PWNED=1} \\ \` */`;

/** The database every hostile run generates: strings and docs full of payloads. */
const DB = 'Hostile';
const ENUM = TERMINATORS.flatMap(([, t]) => [text(t), `x${t}${CODE}0+`]).sort();
function schema(cksum: string): string {
  const strings = { type: 'string', enum: ['set', ENUM] };
  return JSON.stringify({
    name: DB,
    version: '1.0.0',
    cksum,
    tables: {
      T: {
        columns: {
          c: { type: { key: strings } },
          m: { type: { key: strings, value: strings, min: 0, max: 'unlimited' } },
        },
        isRoot: true,
      },
    },
  });
}

/** Docs for {@link DB} with a payload in every place the generator reads. */
function docs(t: Terminator): string {
  const raw = xmlEscape(text(t), false);
  const attr = xmlEscape(text(t));
  return `<database name="${attr}" title="${attr}">
  <table name="T" title="${attr}">
    <p>${raw} <code>${raw}</code> <ref table="${attr}" column="${attr}" key="${attr}"/></p>
    <group title="${attr}">
      <p>${raw}</p>
      <column name="c">${raw}<pre>${raw}</pre><![CDATA[${text(t)}]]><dl><dt>${raw}</dt><dd>${raw}</dd></dl></column>
      <column name="m" key="${attr}">${raw} <var>${raw}</var></column>
    </group>
  </table>
</database>
`;
}

/** Tokens of `source` outside string literals and comments that hold `PWNED`. */
function payloadOutsideLiterals(source: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard);
  scanner.setText(source);
  const found: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const safe =
      kind === ts.SyntaxKind.StringLiteral ||
      kind === ts.SyntaxKind.SingleLineCommentTrivia ||
      kind === ts.SyntaxKind.MultiLineCommentTrivia;
    if (!safe && scanner.getTokenText().includes('PWNED')) found.push(scanner.getTokenText());
  }
  return found;
}

/** The text of every generated file of `dir`. */
function readDir(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

/** What importing a generated model in a fresh process showed. */
interface Imported {
  readonly pwned: string;
  readonly name: string;
  readonly cksum: string;
  readonly enum: readonly string[];
  readonly tables: readonly string[];
}

/** Import each directory's `index.ts` in one child process (as `tsx` runs TypeScript). */
async function importModels(dirs: readonly string[]): Promise<Imported[]> {
  const script = `
    const out = [];
    for (const dir of JSON.parse(process.argv[1])) {
      const mod = await import(dir + '/index.ts');
      out.push({
        pwned: typeof globalThis.PWNED,
        name: mod.Hostile.schema.name,
        cksum: mod.Hostile.schema.cksum,
        enum: mod.TC,
        tables: Object.keys(mod.Hostile.schema.tables),
      });
    }
    process.stdout.write(JSON.stringify(out));`;
  const urls = dirs.map((d) => pathToFileURL(d).href);
  const { stdout } = await run(
    process.execPath,
    [
      '--conditions=ovnkit-source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
      JSON.stringify(urls),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(stdout) as Imported[];
}

/** Type-check `dirs` with the repository's strict settings: tsc's output (empty when clean). */
async function typeCheck(scratch: string, dirs: readonly string[]): Promise<string> {
  const project = join(scratch, 'tsconfig.json');
  writeFileSync(
    project,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: { declaration: false, declarationMap: false, sourceMap: false },
      files: dirs.flatMap((d) => readdirSync(d).map((f) => join(d, f))),
    }),
  );
  try {
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], {
      encoding: 'utf8',
    });
    return '';
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? String(err)}`;
  }
}

/**
 * A hostile file name: a path reaching the header as it is would end the
 * comment and run CODE. (Given relative to the repository as it is: the
 * tests' `repoRelative` turns its backslash into a `/`.)
 */
const fileName = (t: Terminator, stem: string, ext: string): string =>
  `${stem}\\"\`\${x}'${t}${CODE}'${ext}`;

const scratch = scratchDir('hostile-codegen');
/** The hostile sockets' directory: short, so that their paths fit a unix socket address. */
const socketDir = mkdtempSync(join(tmpdir(), 'ovnkit-cg-'));
/** The generated directories that must be clean, by how they were made. */
const generated = new Map<string, string>();
let server: OvsdbServerHandle;
/** The server's hostile socket paths, one per terminator. */
const sockets = new Map<Terminator, string>();
let ssl: OvsdbServerHandle;
let sslFiles: { key: string; cert: string; ca: string };

beforeAll(async () => {
  requireOvsdbServer(true);
  for (const [, t] of TERMINATORS) sockets.set(t, join(socketDir, `s${t}${CODE}'`));
  writeFileSync(join(scratch, 'hostile.ovsschema'), schema(text('\n')));
  [server, ssl] = await Promise.all([
    startOvsdbServer({
      schemaPath: join(scratch, 'hostile.ovsschema'),
      extraArgs: [...sockets.values()].map((p) => `--remote=punix:${p}`),
    }),
    startOvsdbServer({ schemaPath: join(scratch, 'hostile.ovsschema'), remotes: ['ssl'] }),
  ]);
  const pki = ssl.pki!;
  sslFiles = {
    key: join(scratch, fileName('\n', 'key', '.pem')),
    cert: join(scratch, fileName('\r', 'cert', '.pem')),
    ca: join(scratch, fileName('\u2028', 'ca', '.pem')),
  };
  copyFileSync(pki.client.privateKey, sslFiles.key);
  copyFileSync(pki.client.certificate, sslFiles.cert);
  copyFileSync(pki.caCert, sslFiles.ca);
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.stop(), ssl?.stop()]);
  removeDir(scratch);
  rmSync(socketDir, { recursive: true, force: true });
});

describe('ovnkit-codegen generates safe code from hostile input (child processes)', () => {
  it.each(TERMINATORS)(
    'file names, schema strings and docs XML with %s',
    async (_, t) => {
      const dir = join(scratch, `files-${TERMINATORS.findIndex(([, x]) => x === t)}`);
      mkdirSync(dir);
      const schemaFile = join(dir, fileName(t, 'schema', '.ovsschema'));
      const docsFile = join(dir, fileName(t, 'docs', '.xml'));
      const out = join(dir, `out'${t}${CODE}0`);
      writeFileSync(schemaFile, schema(text(t)));
      writeFileSync(docsFile, docs(t));
      const r = await spawnCli([
        '--schema',
        relative(ROOT, schemaFile),
        '--docs',
        relative(ROOT, docsFile),
        '--ovsdb-dir',
        'src/ovsdb',
        '--out',
        relative(ROOT, out),
      ]);
      expect(r.stderr).toContain('generated 3 files');
      expect(r.code).toBe(0);
      generated.set(`files ${t}`, out);
      const files = readDir(out);
      // The hostile text made it into the files, as literals and as docs.
      expect(files.get('t.ts')).toContain('PWNED');
      expect(
        files
          .get('t.ts')!
          .match(/\/\*\*[\s\S]*?\*\//g)!
          .join(''),
      ).toContain('PWNED');
      for (const [name, source] of files) {
        expect(payloadOutsideLiterals(source), name).toEqual([]);
        expect(source.split('\n')[0], name).toMatch(
          /^\/\/ Generated by ovnkit-codegen from Hostile 1\.0\.0 \(cksum [ -~]*\)\. Do not edit\.$/,
        );
      }
    },
    60_000,
  );

  it.each(TERMINATORS)(
    'a --remote socket path with %s',
    async (_, t) => {
      const out = join(scratch, `remote-${TERMINATORS.findIndex(([, x]) => x === t)}`, "out'");
      const r = await spawnCli([
        '--remote',
        `unix:${sockets.get(t)}`,
        '--db',
        DB,
        '--ovsdb-dir',
        'src/ovsdb',
        '--out',
        repoRelative(out),
      ]);
      expect(r.code).toBe(0);
      generated.set(`remote ${t}`, out);
      for (const [name, source] of readDir(out)) {
        expect(payloadOutsideLiterals(source), name).toEqual([]);
      }
    },
    60_000,
  );

  it('TLS files (-p, -c, -C) with line terminators in their names', async () => {
    const out = join(scratch, 'ssl', `out'\u2029${CODE}0`);
    const r = await spawnCli([
      '--remote',
      ssl.remotes.ssl!,
      '--db',
      DB,
      '-p',
      sslFiles.key,
      '-c',
      sslFiles.cert,
      '-C',
      sslFiles.ca,
      '--ovsdb-dir',
      'src/ovsdb',
      '--out',
      repoRelative(out),
    ]);
    expect(r.code).toBe(0);
    generated.set('ssl', out);
    for (const [name, source] of readDir(out)) {
      expect(payloadOutsideLiterals(source), name).toEqual([]);
    }
  }, 60_000);

  it('importing all of it runs nothing and reads the values back, and it type-checks', async () => {
    const dirs = [...generated.values()];
    expect(dirs).toHaveLength(2 * TERMINATORS.length + 1);
    const imported = await importModels(dirs);
    expect(imported).toHaveLength(dirs.length);
    for (const m of imported) {
      expect(m.pwned).toBe('undefined');
      expect(m.name).toBe(DB);
      expect(m.tables).toEqual(['T']);
      expect([...m.enum].sort()).toEqual(ENUM);
    }
    const cksums = new Set(imported.map((m) => m.cksum));
    expect(cksums).toEqual(new Set([...TERMINATORS.map(([, t]) => text(t))]));
    expect(await typeCheck(scratch, dirs)).toBe('');
  }, 120_000);
});

describe('ovnkit-codegen refuses what it cannot generate safely, naming it', () => {
  const payload = (t: Terminator): string => `x${t}${CODE}0+`;
  const schemaArgs = ['--schema', 'schema/_server.ovsschema'];

  let refusals = 0;
  /** Run `args` + `--out <fresh dir>`: the result, and whether the directory was created. */
  async function refused(
    args: readonly string[],
    spawned: boolean,
  ): Promise<{ code: number; stderr: string; wrote: boolean }> {
    const out = join(scratch, `refused-${++refusals}`);
    const r = await (spawned ? spawnCli : cli)([...args, '--out', repoRelative(out)]);
    return { code: r.code, stderr: r.stderr, wrote: existsSync(out) };
  }

  const cases: readonly {
    readonly what: string;
    readonly args: (t: Terminator) => readonly string[];
    readonly code: number;
    readonly error: (t: Terminator) => string;
  }[] = [
    {
      what: '--ovsdb-import',
      args: (t) => [...schemaArgs, '--ovsdb-import', payload(t)],
      code: 2,
      error: (t) =>
        `--ovsdb-import ${JSON.stringify(payload(t))} is not a plain module specifier: it holds ${JSON.stringify(t)}`,
    },
    {
      what: '--ovsdb-dir',
      args: (t) => [...schemaArgs, '--ovsdb-dir', repoRelative(join(scratch, payload(t)))],
      code: 2,
      error: (t) =>
        `--ovsdb-dir ${JSON.stringify(repoRelative(join(scratch, payload(t))))} gives the import path`,
    },
    {
      what: '--name',
      args: (t) => [...schemaArgs, '--name', payload(t)],
      code: 2,
      error: (t) => `--name ${JSON.stringify(payload(t))} is not a TypeScript identifier`,
    },
    {
      what: '--timeout',
      args: (t) => ['--remote', 'unix:/nonexistent', '--db', 'X', '--timeout', payload(t)],
      code: 2,
      error: () => '--timeout must be a positive number of milliseconds',
    },
    {
      what: '--db',
      args: (t) => ['--remote', `unix:${sockets.get(t)}`, '--db', payload(t)],
      code: 1,
      error: (t) => `has no database ${payload(t)} (it has: ${DB}, _Server)`,
    },
    ...(['name', 'version', 'table', 'column', 'refTable'] as const).map((where) => ({
      what: `the schema's ${where}`,
      args: (t: Terminator) => {
        const file = join(scratch, `schema-${where}-${t.charCodeAt(0)}.ovsschema`);
        const p = payload(t);
        const column: Record<string, unknown> =
          where === 'refTable'
            ? { type: { key: { type: 'uuid', refTable: p } } }
            : { type: 'string' };
        const doc = {
          name: where === 'name' ? p : 'S',
          version: where === 'version' ? p : '1.0.0',
          tables: {
            [where === 'table' ? p : 'T']: { columns: { [where === 'column' ? p : 'c']: column } },
          },
        };
        writeFileSync(file, JSON.stringify(doc));
        return ['--schema', repoRelative(file)];
      },
      code: 1,
      error: () => 'invalid schema in ',
    })),
  ];

  it.each(cases.map((c) => [c.what, c] as const))(
    '%s with LF, CR, U+2028 and U+2029 (LF in a child process)',
    async (_, c) => {
      for (const [name, t] of TERMINATORS) {
        const r = await refused(c.args(t), t === '\n');
        expect(r.stderr, name).toContain(c.error(t));
        expect(r.code, name).toBe(c.code);
        expect(r.wrote, name).toBe(false);
      }
    },
    60_000,
  );
});
