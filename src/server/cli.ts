#!/usr/bin/env node
/**
 * `ovnkit-server`: ovnkit's in-memory OVSDB server as a program, a stand-in
 * for `ovsdb-server` in demos and tests.
 *
 * ```sh
 * ovnkit-server --schema schema/ovn-nb-7.18.0.ovsschema --listen ptcp:6641:127.0.0.1
 * ovnkit-server --schema nb.ovsschema --listen punix:/tmp/nb.sock --db /tmp/nb.json
 * ovnkit-server --schema nb.ovsschema --listen ws:127.0.0.1:8080   # browsers connect to ws://127.0.0.1:8080/
 * ```
 *
 * It prints one `listening on <remote>` line per listener on stdout once
 * every listener accepts connections, runs until SIGINT or SIGTERM, and then
 * writes the snapshot (with `--db`) and exits 0.
 * @module
 */

import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseSchemaText } from '../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { SchemaError } from '../ovsdb/wire/errors.js';
import { createServer, type OvsdbServer } from './server.js';

const USAGE = `Usage:
  ovnkit-server --schema FILE [--schema FILE…] --listen REMOTE [--listen REMOTE…] [options]

Serve OVSDB databases from memory, answering clients as ovsdb-server does.

Options:
  --schema FILE          an .ovsschema file; one database per schema
  --listen REMOTE        punix:PATH, ptcp:PORT[:IP], pssl:PORT[:IP], or a
                         WebSocket endpoint ws:IP:PORT[/PATH] or
                         wss:IP:PORT[/PATH] on a loopback IP (also --remote)
  --db FILE              load the databases from this JSON snapshot when it
                         exists, and keep it up to date (atomic writes)
  --probe-interval MS    inactivity probe of tcp/ssl clients (default 5000, 0: off)
  --history N            transactions kept for monitor_cond_since (default 100)
  --private-key FILE     TLS key for pssl: and wss: listeners (PEM)
  --certificate FILE     TLS certificate for pssl: and wss: listeners (PEM)
  --ca-cert FILE         CA that client certificates must chain to (PEM)
  --log-file FILE        append the server log to FILE
  -v, --verbose          also print the server log on stderr
  -h, --help             show this help
`;

/** Where the CLI writes. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

class UsageError extends Error {}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      schema: { type: 'string', multiple: true },
      listen: { type: 'string', multiple: true },
      remote: { type: 'string', multiple: true },
      db: { type: 'string' },
      'probe-interval': { type: 'string' },
      history: { type: 'string' },
      'private-key': { type: 'string' },
      certificate: { type: 'string' },
      'ca-cert': { type: 'string' },
      'log-file': { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
}

function nonNegative(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new UsageError(`${option} must be a non-negative integer, got "${value}"`);
  }
  return n;
}

/**
 * Start the server from command-line `args`. Resolves with the running
 * server, or with an exit code when there is nothing to run (help, errors).
 */
export async function startCli(args: readonly string[], io: CliIo): Promise<OvsdbServer | number> {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(args).values;
  } catch (e) {
    io.stderr(`ovnkit-server: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    io.stdout(USAGE);
    return 0;
  }
  try {
    const schemaFiles = values.schema ?? [];
    if (schemaFiles.length === 0) throw new UsageError('give at least one --schema FILE');
    const listen = [...(values.listen ?? []), ...(values.remote ?? [])];
    if (listen.length === 0) throw new UsageError('give at least one --listen REMOTE');
    const schemas: DatabaseSchema[] = schemaFiles.map((file) => {
      const text = readText(file, 'schema file');
      try {
        return parseSchemaText(text);
      } catch (e) {
        if (e instanceof SchemaError || e instanceof SyntaxError) {
          throw new UsageError(`invalid schema ${file}: ${e.message}`);
        }
        throw e;
      }
    });
    const tlsFiles = [values['private-key'], values.certificate, values['ca-cert']];
    const tlsGiven = tlsFiles.filter((f) => f !== undefined).length;
    if (tlsGiven !== 0 && tlsGiven !== 3) {
      throw new UsageError('--private-key, --certificate and --ca-cert go together');
    }
    const server = await createServer({
      databases: schemas,
      listen,
      dbFile: values.db,
      probeIntervalMs: nonNegative(values['probe-interval'], '--probe-interval'),
      historyLength: nonNegative(values.history, '--history'),
      logFile: values['log-file'],
      onLog: values.verbose === true ? (line) => io.stderr(`${line}\n`) : undefined,
      tls:
        tlsGiven === 3
          ? {
              key: readText(values['private-key'] as string, 'private key'),
              cert: readText(values.certificate as string, 'certificate'),
              ca: readText(values['ca-cert'] as string, 'CA certificate'),
            }
          : undefined,
    });
    for (const remote of server.remotes) io.stdout(`listening on ${remote}\n`);
    return server;
  } catch (e) {
    io.stderr(`ovnkit-server: ${(e as Error).message}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
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
  const io: CliIo = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  };
  const started = await startCli(process.argv.slice(2), io);
  if (typeof started === 'number') {
    process.exitCode = started;
  } else {
    const stop = (signal: string): void => {
      io.stderr(`ovnkit-server: ${signal}, shutting down\n`);
      started.close().then(
        () => process.exit(0),
        (e: unknown) => {
          io.stderr(`ovnkit-server: ${(e as Error).message}\n`);
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  }
}
