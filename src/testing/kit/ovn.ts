/**
 * {@link startOvn}: OVN's central databases for a test, Northbound and
 * Southbound (on the in-memory server by default, on real `ovsdb-server`s on
 * request), with a real `ovn-northd` between them, and
 * {@link OvnFixture.waitForSb}, which resolves once the Southbound reflects
 * everything committed to the Northbound so far (`nb_cfg` / `sb_cfg`, as
 * `ovn-nbctl --wait=sb sync` waits).
 * @module
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { NBTables } from '../../nb/generated/model.js';
import { connect } from '../../ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../ovsdb/connection/connection.js';
import { defineModel, type TableMap } from '../../ovsdb/schema/model.js';
import { parseSchemaText } from '../../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../ovsdb/schema/schema-types.js';
import { findProgram } from '../ovs-tools.js';
import type { OvsdbServerHandle } from '../ovsdb-server.js';
import { startOvsdbServer } from '../ovsdb-server.js';
import { liveChildren, liveDirs } from '../processes.js';
import { type SeededDatabase, startSeededServer, TestServer } from './database.js';
import type { CheckedSeed, NamesOf, SeedShape } from './seed.js';
import { seedTransaction } from './seed.js';

/** Options of {@link startOvn}. */
export interface StartOvnOptions {
  /**
   * Where NB and SB run: `memory` (the default: ovnkit's in-memory server,
   * with faults, recording and direct matchers on {@link OvnDatabase.db}) or
   * `ovsdb-server` (real Open vSwitch servers).
   */
  readonly server?: 'memory' | 'ovsdb-server' | undefined;
  /**
   * The schemas served. Default: those installed with `ovn-northd`
   * (`<prefix>/share/ovn/ovn-nb.ovsschema`, `ovn-sb.ovsschema`), which the
   * installed `ovn-northd` expects.
   */
  readonly nbSchema?: string | DatabaseSchema | undefined;
  readonly sbSchema?: string | DatabaseSchema | undefined;
  /** More `ovn-northd` arguments. */
  readonly northdArgs?: readonly string[] | undefined;
}

/** One of the fixture's databases. */
export interface OvnDatabase<DB extends TableMap = TableMap> {
  /** Its `unix:` remote: for any client (`connectDatabase`, `ovn-nbctl --db=…`, …). */
  readonly remote: string;
  /** The in-memory test database (faults, recording, matchers), when `server` is `memory`. */
  readonly db: SeededDatabase<DB, Record<string, string>> | undefined;
  /** The real server, when `server` is `ovsdb-server`. */
  readonly ovsdbServer: OvsdbServerHandle | undefined;
}

/** NB, SB and `ovn-northd`, running. */
export interface OvnFixture<N = Record<never, never>> extends AsyncDisposable {
  /** The Northbound database (seeded names of `nbSeed` in {@link OvnFixture.uuid}). */
  readonly nb: OvnDatabase<NBTables>;
  /** The Southbound database (northd fills it). */
  readonly sb: OvnDatabase;
  /** The directory holding the sockets, northd's pidfile, unixctl socket and log. */
  readonly dir: string;
  /** `ovn-northd`'s log file. */
  readonly northdLog: string;
  /** The UUID of the NB row the seed named `name` in `table`. */
  uuid<T extends Extract<keyof N, string>>(table: T, name: N[T]): string;
  /**
   * Resolves once the Southbound reflects every NB commit made so far:
   * increments `NB_Global.nb_cfg` and waits until `ovn-northd` reports
   * (in `NB_Global.sb_cfg`) that its SB changes for it are committed.
   * @throws Error (with the tail of northd's log) after `timeoutMs` (default 30 s).
   */
  waitForSb(options?: { readonly timeoutMs?: number | undefined }): Promise<void>;
  /** Stop `ovn-northd`, then both servers, and remove the directory. */
  stop(): Promise<void>;
}

/** Thrown by {@link startOvn} when `ovn-northd` is not installed. */
export class OvnNorthdMissingError extends Error {
  override name = 'OvnNorthdMissingError';
}

const NOTICE = [
  '',
  '################################################################################',
  '#  ovn-northd NOT FOUND                                                        #',
  '#                                                                              #',
  '#  Tests that check logical flows run a real ovn-northd between NB and SB.    #',
  '#  Install OVN (Debian/Ubuntu: apt-get install ovn-central) so that           #',
  '#  ovn-northd is on PATH or in /usr/sbin, or these tests are skipped.         #',
  '################################################################################',
  '',
].join('\n');

/**
 * Whether `ovn-northd` can run here: undefined when it is installed; when
 * it is not, prints a loud notice and returns the reason to skip with,
 * except under `CI=true`, where it throws {@link OvnNorthdMissingError} (a
 * missing program fails CI).
 */
export function ovnNorthdMissing(): string | undefined {
  if (findProgram('ovn-northd') !== undefined) return undefined;
  process.stderr.write(NOTICE);
  const reason = 'ovn-northd is not installed (apt-get install ovn-central)';
  if (process.env['CI'] === 'true') {
    throw new OvnNorthdMissingError(`${reason}; CI=true: a missing program is a failure`);
  }
  return reason;
}

/** The schemas installed with `ovn-northd` (`<prefix>/bin/ovn-northd` → `<prefix>/share/ovn`). */
function installedSchema(northd: string, file: string): string {
  const prefix = dirname(dirname(northd));
  return join(prefix === '/' ? '/usr' : prefix, 'share', 'ovn', file);
}

async function schemaOf(given: string | DatabaseSchema | undefined, fallback: string) {
  if (given !== undefined && typeof given !== 'string') return given;
  return parseSchemaText(await readFile(resolve(given ?? fallback), 'utf8'));
}

/**
 * Start NB and SB and `ovn-northd` between them. `nbSeed` (typed by ovnkit's
 * NB model; checked at run time against the schema served) gives the rows
 * NB starts with; an `NB_Global` row is added when it has none, as
 * `ovn-nbctl init` does.
 * @example
 * ```ts
 * import { startOvn } from 'ovnkit/testing';
 *
 * await using ovn = await startOvn({
 *   nbSeed: { Logical_Switch: { sw0: { name: 'sw0', ports: ['p1'] } }, Logical_Switch_Port: { p1: { name: 'p1' } } },
 * });
 * await ovn.waitForSb(); // SB now has sw0's datapath and logical flows
 * ```
 * @throws OvnNorthdMissingError when `ovn-northd` is not installed (see
 *   {@link ovnNorthdMissing} to skip instead).
 */
export async function startOvn<const S extends SeedShape<NBTables> = Record<never, never>>(
  options: StartOvnOptions & { readonly nbSeed?: S & CheckedSeed<NBTables, S> } = {},
): Promise<OvnFixture<NamesOf<S>>> {
  const northd = findProgram('ovn-northd');
  if (northd === undefined) {
    throw new OvnNorthdMissingError('ovn-northd is not installed (apt-get install ovn-central)');
  }
  const nbSchema = await schemaOf(options.nbSchema, installedSchema(northd, 'ovn-nb.ovsschema'));
  const sbSchema = await schemaOf(options.sbSchema, installedSchema(northd, 'ovn-sb.ovsschema'));
  const seed = { ...(options.nbSeed as Record<string, Record<string, object>> | undefined) };
  if (seed['NB_Global'] === undefined || Object.keys(seed['NB_Global']).length === 0) {
    seed['NB_Global'] = { global: {} };
  }
  const dir = await mkdtemp(join(tmpdir(), 'ovnkit-ovn-'));
  liveDirs.add(dir);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const s of stops.reverse()) await s();
    stops.length = 0;
    liveDirs.delete(dir);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    let nb: OvnDatabase<NBTables>;
    let sb: OvnDatabase;
    let names: (table: string, name: string) => string | undefined;
    if (options.server === 'ovsdb-server') {
      const { ops, book } = seedTransaction(nbSchema, seed);
      const [nbServer, sbServer] = await Promise.all([
        startOvsdbServer({ schema: nbSchema.json as object }),
        startOvsdbServer({ schema: sbSchema.json as object }),
      ]);
      stops.push(
        () => nbServer.stop(),
        () => sbServer.stop(),
      );
      const conn = await connect(nbServer.unixRemote);
      try {
        await conn.transact(nbSchema.name, ops);
      } finally {
        conn.close();
      }
      nb = { remote: nbServer.unixRemote, db: undefined, ovsdbServer: nbServer };
      sb = { remote: sbServer.unixRemote, db: undefined, ovsdbServer: sbServer };
      names = (t, n) => book.uuid(t, n);
    } else {
      const nbSock = join(dir, 'nb.sock');
      const sbSock = join(dir, 'sb.sock');
      const nbModel = defineModel<NBTables>(nbSchema);
      const started = await startSeededServer(nbModel, seed, { listen: [`punix:${nbSock}`] });
      const nbDb = new TestServer<NBTables, Record<string, string>>(
        nbModel,
        started.server,
        started.book,
      );
      stops.push(() => nbDb.close());
      const sbModel = defineModel<TableMap>(sbSchema);
      const sbStarted = await startSeededServer(sbModel, undefined, {
        listen: [`punix:${sbSock}`],
      });
      const sbDb = new TestServer<TableMap, Record<string, string>>(
        sbModel,
        sbStarted.server,
        sbStarted.book,
      );
      stops.push(() => sbDb.close());
      nb = { remote: `unix:${nbSock}`, db: nbDb, ovsdbServer: undefined };
      sb = { remote: `unix:${sbSock}`, db: sbDb, ovsdbServer: undefined };
      names = (t, n) => started.book.uuid(t, n);
    }
    const northdLog = join(dir, 'northd.log');
    const child: ChildProcess = spawn(
      northd,
      [
        `--ovnnb-db=${nb.remote}`,
        `--ovnsb-db=${sb.remote}`,
        `--unixctl=${join(dir, 'northd.ctl')}`,
        `--pidfile=${join(dir, 'northd.pid')}`,
        `--log-file=${northdLog}`,
        '-vconsole:off',
        ...(options.northdArgs ?? []),
      ],
      { stdio: 'ignore' },
    );
    liveChildren.add(child);
    stops.push(async () => {
      liveChildren.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    });
    let conn: OvsdbConnection | undefined;
    stops.push(async () => conn?.close());
    const nbName = nbSchema.name;
    const tail = async (): Promise<string> => {
      const text = await readFile(northdLog, 'utf8').catch(() => '');
      return text.split('\n').slice(-15).join('\n');
    };
    const fixture: OvnFixture<NamesOf<S>> = {
      nb,
      sb,
      dir,
      northdLog,
      uuid: (table, name) => {
        const u = names(table, String(name));
        if (u === undefined)
          throw new Error(`the NB seed has no ${table} row named ${String(name)}`);
        return u;
      },
      async waitForSb(wait = {}) {
        const timeoutMs = wait.timeoutMs ?? 30_000;
        conn ??= await connect(nb.remote);
        const [, selected] = await conn.transact(nbName, [
          { op: 'mutate', table: 'NB_Global', where: [], mutations: [['nb_cfg', '+=', 1]] },
          { op: 'select', table: 'NB_Global', where: [], columns: ['nb_cfg'] },
        ]);
        const rows = (selected as { rows?: { nb_cfg?: number }[] }).rows ?? [];
        const target = rows[0]?.nb_cfg;
        if (target === undefined) throw new Error('waitForSb: NB has no NB_Global row');
        try {
          await conn.transact(nbName, [
            {
              op: 'wait',
              table: 'NB_Global',
              where: [['sb_cfg', '>=', target]],
              columns: ['sb_cfg'],
              until: '!=',
              rows: [],
              timeout: timeoutMs,
            },
          ]);
        } catch (e) {
          const exited =
            child.exitCode !== null || child.signalCode !== null
              ? ` (ovn-northd exited: ${child.exitCode ?? child.signalCode})`
              : '';
          throw new Error(
            `waitForSb: SB did not reflect nb_cfg ${target} within ${timeoutMs} ms${exited}; the end of northd's log:\n${await tail()}`,
            { cause: e },
          );
        }
      },
      stop: stopAll,
      [Symbol.asyncDispose]: stopAll,
    };
    return fixture;
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/**
 * {@link startOvn} for a test whose runner skips through its context
 * (vitest's `ctx.skip`): when `ovn-northd` is not installed, prints a loud
 * notice and skips the test with the reason (under `CI=true` it throws: a
 * missing program fails CI).
 * @example
 * ```ts
 * import { it } from 'vitest';
 * import { startOvnOrSkip } from 'ovnkit/testing';
 *
 * it('northd makes flows', async (ctx) => {
 *   await using ovn = await startOvnOrSkip(ctx, { nbSeed: { Logical_Switch: { sw0: { name: 'sw0' } } } });
 *   await ovn.waitForSb();
 * });
 * ```
 */
export async function startOvnOrSkip<const S extends SeedShape<NBTables> = Record<never, never>>(
  ctx: { skip(note?: string): never },
  options: StartOvnOptions & { readonly nbSeed?: S & CheckedSeed<NBTables, S> } = {},
): Promise<OvnFixture<NamesOf<S>>> {
  const missing = ovnNorthdMissing();
  if (missing !== undefined) ctx.skip(missing);
  return startOvn<S>(options);
}
