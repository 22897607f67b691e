#!/usr/bin/env node
/**
 * `ovnkit-codegen`: generate typed models from an `.ovsschema` file or a live
 * server's schema, or check that a directory is up to date.
 *
 * ```sh
 * ovnkit-codegen --schema ovn-nb.ovsschema --docs ovn-nb.xml --out src/nb
 * ovnkit-codegen --remote unix:/var/run/ovn/ovnnb_db.sock --db OVN_Northbound --out src/nb
 * ovnkit-codegen --remote ssl:10.0.0.1:6642 --db OVN_Southbound -p key.pem -c cert.pem -C cacert.pem --out src/sb
 * ovnkit-codegen --schema ovn-nb.ovsschema --out src/nb --check
 * ```
 * @module
 */

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { closeSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect, SchemaError, type TlsOptions } from 'ovnkit/ovsdb';
import { bundledDocs } from './bundled-docs.js';
import { checkGenerated, writeGenerated } from './files.js';
import { DEFAULT_OVSDB_IMPORT, generate } from './generate.js';
import { specifierProblem } from './imports.js';
import { isIdentifier } from './names.js';
import type { OvsdbImports } from './render.js';
import { MAX_XML_LENGTH, XmlError } from './xml.js';

/** The largest schema accepted, from a file or a server (the largest OVN schema is 45 KiB). */
const MAX_SCHEMA_BYTES = 16 * 1024 * 1024;
/** The largest PEM file accepted for the TLS flags. */
const MAX_PEM_BYTES = 1024 * 1024;

const USAGE = `Usage:
  ovnkit-codegen --schema FILE --out DIR [options]
  ovnkit-codegen --remote REMOTE --db NAME --out DIR [options]

Generate typed TypeScript models (one file per table, model.ts, index.ts)
from an OVSDB schema.

Input (one of):
  --schema FILE         an .ovsschema file
  --remote REMOTE       fetch the schema from a server: unix:PATH,
                        tcp:HOST[:PORT], ssl:HOST[:PORT]
  --db NAME             the database to fetch with --remote (e.g. OVN_Northbound)

TLS, for an ssl: --remote (all three needed, as ovsdb-client; PEM files):
  -p, --private-key FILE  the client's private key
  -c, --certificate FILE  the client's certificate
  -C, --ca-cert FILE      the CA certificate the server's certificate must be
                          signed by (its host name is not checked, as
                          ovsdb-client does not)

Options:
  --out DIR             output directory (required)
  --docs XML            documentation XML for table and column docs; default:
                        the one ovnkit ships for the schema's name (ovn-nb.xml
                        for OVN_Northbound, ovn-sb.xml for OVN_Southbound,
                        vswitch.xml for Open_vSwitch), none for other names
  --no-docs             no documentation XML, only the schema's facts
  --name NAME           model name (default: NB, SB, OpenVSwitch, Server, or
                        the PascalCase database name)
  --ovsdb-import SPEC   module the generated code imports the ovsdb layer from,
                        a plain module specifier: letters, digits and
                        @ # . _ ~ + / - (default: ${DEFAULT_OVSDB_IMPORT})
  --ovsdb-dir DIR       import the ovsdb layer from its source directory instead
                        (relative imports of DIR/values/uuid.js, values/int64.js,
                        schema/model.js, schema/schema.js)
  --embed-schema        also export the schema document exactly as given
                        (<NAME>SchemaJson in model.ts, members in its order)
                        and build the model from it rather than from the
                        canonical table schemas
  --check               write nothing; exit 1 with a diff if DIR is not what
                        would be generated (extra and missing files included)
  --timeout MS          --remote: give up after MS milliseconds (default 10000)
  -h, --help            show this help

Exit status: 0 on success, 1 when --check finds differences or generation
fails, 2 on a usage error.`;

/** Where the CLI writes; tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress lines are shown only then). */
  readonly stderrIsTty: boolean;
  /** The directory relative paths are resolved against. */
  readonly cwd: string;
}

class UsageError extends Error {}

/** A path as the user would type it from `cwd`, with `/` separators. */
function displayPath(cwd: string, path: string): string {
  const abs = resolve(cwd, path);
  const rel = relative(cwd, abs);
  const shown = rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? abs : rel;
  return shown.split(sep).join('/');
}

/** A relative module specifier from `fromDir` to `file` (always starting with `.`). */
function relativeSpecifier(fromDir: string, file: string): string {
  const rel = relative(fromDir, file).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * Run the CLI with `args` (without `node` and the script). Resolves to the
 * exit status; never throws for user errors.
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    io.stderr(`ovnkit-codegen: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values } = parsed;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  let ovsdbImport: OvsdbImports;
  try {
    validate(values);
    ovsdbImport = ovsdbImports(values, io.cwd, resolve(io.cwd, values.out!));
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`ovnkit-codegen: ${err.message}\nTry --help.\n`);
      return 2;
    }
    throw err;
  }

  let schema: unknown;
  let source: string;
  let docsShown: string | undefined;
  try {
    if (values.schema !== undefined) {
      source = displayPath(io.cwd, values.schema);
      schema = readText(resolve(io.cwd, values.schema), 'schema', MAX_SCHEMA_BYTES);
    } else {
      source = `${values.remote} (${values.db})`;
      const tls = readTls(values, io.cwd);
      schema = await fetchSchema(values.remote!, values.db!, Number(values.timeout ?? 10_000), tls);
    }
    let docsXml: string | undefined;
    if (values.docs !== undefined) {
      docsShown = displayPath(io.cwd, values.docs);
      docsXml = readText(resolve(io.cwd, values.docs), 'docs', MAX_XML_LENGTH);
    } else if (!values['no-docs']) {
      // The documentation ovnkit ships for this database, if any.
      const name = schemaName(schema);
      const shipped = name === undefined ? undefined : bundledDocs(name);
      if (shipped?.found) {
        docsShown = displayPath(io.cwd, shipped.path);
        docsXml = readText(shipped.path, 'docs', MAX_XML_LENGTH);
      } else if (shipped !== undefined) {
        io.stderr(
          `warning: no documentation for ${name}: ${shipped.reason}; ` +
            'give --docs FILE, or --no-docs to silence this\n',
        );
      }
    }
    const out = values.out!;
    const outAbs = resolve(io.cwd, out);
    const outShown = displayPath(io.cwd, out);

    const started = performance.now();
    const files = generate({
      schema,
      docsXml,
      name: values.name,
      embedSchema: values['embed-schema'],
      ovsdbImport,
      warn: (message) => io.stderr(`warning: ${message}\n`),
      onTable: io.stderrIsTty
        ? (table, i, total) =>
            io.stderr(`[${String(i).padStart(String(total).length)}/${total}] ${table}\n`)
        : undefined,
    });
    const ms = Math.round(performance.now() - started);

    if (values.check) {
      const result = checkGenerated(outAbs, files, outShown);
      if (result.ok) {
        io.stderr(`${outShown} is up to date with ${source} (${files.size} files)\n`);
        return 0;
      }
      io.stdout(result.diff);
      const parts = [
        result.changed.length > 0 ? `${result.changed.length} changed` : '',
        result.missing.length > 0 ? `${result.missing.length} missing` : '',
        result.extra.length > 0 ? `${result.extra.length} extra` : '',
      ].filter((p) => p !== '');
      io.stderr(
        `${outShown} is out of date with ${source}: ${parts.join(', ')} ` +
          '(regenerate with the same command without --check)\n',
      );
      return 1;
    }
    const result = writeGenerated(outAbs, files);
    for (const f of result.removed) io.stderr(`removed stale ${outShown}/${f}\n`);
    for (const f of result.foreign) {
      io.stderr(`warning: ${outShown}/${f} is not a generated file; --check will report it\n`);
    }
    io.stderr(
      `generated ${files.size} files in ${outShown} from ${source} in ${ms} ms ` +
        `(${result.written.length} written, ${result.unchanged.length} unchanged)\n`,
    );
    return 0;
  } catch (err) {
    io.stderr(`ovnkit-codegen: ${describeError(err, values, docsShown)}\n`);
    return 1;
  }
}

/**
 * Where the generated code imports the ovsdb layer from: `--ovsdb-import`, or
 * relative paths from the output directory into `--ovsdb-dir`; each must be a
 * plain module specifier (a usage error naming the option otherwise).
 */
function ovsdbImports(values: Values, cwd: string, outAbs: string): OvsdbImports {
  const plain = (option: string, given: string, spec: string): string => {
    const problem = specifierProblem(spec);
    if (problem === undefined) return spec;
    const path = spec === given ? '' : ` gives the import path ${JSON.stringify(spec)}, which`;
    throw new UsageError(
      `${option} ${JSON.stringify(given)}${path} is not a plain module specifier: ${problem}`,
    );
  };
  const dir = values['ovsdb-dir'];
  if (dir !== undefined) {
    const from = (path: string): string =>
      plain('--ovsdb-dir', dir, relativeSpecifier(outAbs, resolve(cwd, dir, path)));
    return {
      uuid: from('values/uuid.js'),
      int64: from('values/int64.js'),
      model: from('schema/model.js'),
      schema: from('schema/schema.js'),
    };
  }
  const spec = values['ovsdb-import'];
  return spec === undefined ? DEFAULT_OVSDB_IMPORT : plain('--ovsdb-import', spec, spec);
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      schema: { type: 'string' },
      remote: { type: 'string' },
      db: { type: 'string' },
      out: { type: 'string' },
      docs: { type: 'string' },
      'no-docs': { type: 'boolean' },
      'private-key': { type: 'string', short: 'p' },
      certificate: { type: 'string', short: 'c' },
      'ca-cert': { type: 'string', short: 'C' },
      'bootstrap-ca-cert': { type: 'string' },
      name: { type: 'string' },
      'ovsdb-import': { type: 'string' },
      'ovsdb-dir': { type: 'string' },
      'embed-schema': { type: 'boolean' },
      check: { type: 'boolean' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

type Values = ReturnType<typeof parse>['values'];

function validate(values: Values): void {
  if (values.schema === undefined && values.remote === undefined) {
    throw new UsageError('give --schema FILE or --remote REMOTE --db NAME');
  }
  if (values.schema !== undefined && values.remote !== undefined) {
    throw new UsageError('--schema and --remote cannot be used together');
  }
  if (values.remote !== undefined && values.db === undefined) {
    throw new UsageError('--remote needs --db NAME');
  }
  if (values.db !== undefined && values.remote === undefined) {
    throw new UsageError('--db is only used with --remote');
  }
  if (values.out === undefined) throw new UsageError('--out DIR is required');
  if (values.name !== undefined && !isIdentifier(values.name)) {
    throw new UsageError(
      `--name ${JSON.stringify(values.name)} is not a TypeScript identifier (letters, digits, _ and $, not starting with a digit)`,
    );
  }
  if (values['ovsdb-import'] !== undefined && values['ovsdb-dir'] !== undefined) {
    throw new UsageError('--ovsdb-import and --ovsdb-dir cannot be used together');
  }
  if (values.timeout !== undefined && !(Number(values.timeout) > 0)) {
    throw new UsageError('--timeout must be a positive number of milliseconds');
  }
  if (values.docs !== undefined && values['no-docs']) {
    throw new UsageError('--docs and --no-docs cannot be used together');
  }
  if (values['bootstrap-ca-cert'] !== undefined) {
    throw new UsageError(
      '--bootstrap-ca-cert is not supported: get the CA certificate another way and give it with --ca-cert FILE',
    );
  }
  const given = TLS_FLAGS.filter((flag) => values[flag] !== undefined);
  const ssl = values.remote !== undefined && /^ssl:/i.test(values.remote);
  if (!ssl && given.length > 0) {
    throw new UsageError(
      `${given.map((f) => `--${f}`).join(', ')}: only used with an ssl: --remote`,
    );
  }
  if (ssl && given.length < TLS_FLAGS.length) {
    const missing = TLS_FLAGS.filter((flag) => values[flag] === undefined);
    throw new UsageError(
      `--remote ${values.remote} needs --private-key FILE, --certificate FILE and --ca-cert FILE ` +
        `(missing: ${missing.map((f) => `--${f}`).join(', ')})`,
    );
  }
}

/** The TLS flags, as ovsdb-client has them. */
const TLS_FLAGS = ['private-key', 'certificate', 'ca-cert'] as const;

/**
 * The TLS options for an ssl: remote from the files of the TLS flags, each
 * read and checked here so that a problem names its flag and file. Like
 * ovsdb-client, the server's certificate must chain to the CA but its name is
 * not checked.
 */
function readTls(values: Values, cwd: string): TlsOptions | undefined {
  if (!(values.remote !== undefined && /^ssl:/i.test(values.remote))) return undefined;
  const pem = (flag: (typeof TLS_FLAGS)[number]): { path: string; text: string } => {
    const path = resolve(cwd, values[flag]!);
    return { path, text: readText(path, `--${flag}`, MAX_PEM_BYTES) };
  };
  const key = pem('private-key');
  const cert = pem('certificate');
  const ca = pem('ca-cert');
  try {
    createPrivateKey(key.text);
  } catch (err) {
    throw new InputError(
      `--private-key file ${key.path} holds no PEM private key: ${(err as Error).message}`,
    );
  }
  for (const [flag, file] of [
    ['--certificate', cert],
    ['--ca-cert', ca],
  ] as const) {
    try {
      new X509Certificate(file.text);
    } catch (err) {
      throw new InputError(
        `${flag} file ${file.path} holds no PEM certificate: ${(err as Error).message}`,
      );
    }
  }
  return {
    key: key.text,
    cert: cert.text,
    ca: ca.text,
    checkServerIdentity: () => undefined,
  };
}

/** The `name` of a schema document (text or parsed JSON), if it has one. */
function schemaName(schema: unknown): string | undefined {
  let json = schema;
  if (typeof schema === 'string') {
    try {
      json = JSON.parse(schema);
    } catch {
      return undefined; // generate() reports it
    }
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const name = (json as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

class InputError extends Error {}

/**
 * The text of a file, read in pieces and refused past `maxBytes` (so that a
 * huge file or a device such as /dev/zero is an error, not all the memory).
 */
function readText(path: string, what: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new InputError(`cannot read ${what} file ${path}: ${reason}`);
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) {
        throw new InputError(
          `${what} file ${path} is larger than ${maxBytes / 1024 / 1024} MiB, the most ovnkit-codegen reads`,
        );
      }
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read ${what} file ${path}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

async function fetchSchema(
  remote: string,
  db: string,
  timeoutMs: number,
  tls: TlsOptions | undefined,
): Promise<unknown> {
  const conn = await connect(remote, { timeoutMs, tls, maxMessageBytes: MAX_SCHEMA_BYTES });
  try {
    const dbs = await conn.listDbs({ timeoutMs });
    if (!dbs.includes(db)) {
      throw new InputError(`${remote} has no database ${db} (it has: ${dbs.join(', ')})`);
    }
    return await conn.getSchema(db, { timeoutMs });
  } finally {
    conn.close();
  }
}

function describeError(err: unknown, values: Values, docs: string | undefined): string {
  if (err instanceof SchemaError) {
    const where = values.schema ?? `${values.remote} ${values.db}`;
    return `invalid schema in ${where}: ${err.message}`;
  }
  if (err instanceof XmlError) return `invalid docs XML in ${docs}: ${err.message}`;
  if (err instanceof Error) return err.message;
  return String(err);
}

function isMain(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const code = await runCli(process.argv.slice(2), {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stderrIsTty: process.stderr.isTTY === true,
    cwd: process.cwd(),
  });
  process.exitCode = code;
}
