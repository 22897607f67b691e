/**
 * The server's JSON-RPC methods: one handler per request method in
 * {@link METHODS} (a new method is one more entry there), and the
 * notifications. `echo` and the message checks are the session's own (see
 * `session.ts`); transactions are run by `transact.ts` and monitors kept by
 * `monitor-hub.ts`.
 *
 * ## The methods
 * `list_dbs`, `get_schema`, `get_server_id`, `echo`, `transact` (atomic; a
 * `wait` that is not yet satisfied keeps the request pending, re-run after
 * every later commit to the database and failed with "timed out" when its
 * `timeout` passes), `cancel` (a notification: the pending request is dropped,
 * and answered with the error "canceled" only when the session is
 * db-change-aware), `monitor` / `monitor_cond` / `monitor_cond_since` (see
 * `monitor/monitor.ts`), `monitor_cond_change`, `monitor_cancel`, `lock` / `steal` /
 * `unlock` (see `locks.ts`; `assert` checks lock ownership),
 * `set_db_change_aware` and `convert` (online schema conversion, as
 * ovsdb-server converts a standalone database). A `_Server` database describes the databases
 * (model `standalone`, `leader` true).
 * @module
 */

import { parseSchema } from '../../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../ovsdb/schema/schema-types.js';
import { OpError, syntaxError } from '../engine/op-error.js';
import { isId } from '../engine/values.js';
import type { MonitorVersion } from '../monitor/monitor.js';
import type { MonitorHub } from '../monitor/monitor-hub.js';
import type { DatabaseRegistry, Served, Trigger } from '../registry.js';
import type { LockTable } from './locks.js';
import { jsonKey, type Session } from './session.js';
import type { Transactions } from './transact.js';

/** The server state the method handlers work on. */
export interface MethodContext {
  /** The server's UUID (`get_server_id`). */
  readonly serverId: string;
  readonly databases: DatabaseRegistry;
  readonly transactions: Transactions;
  readonly monitors: MonitorHub;
  readonly locks: LockTable<Session>;
  /**
   * Convert served database `served` online to `schema` (checked to have
   * its name, parsed from `json`); the new database is served, its file
   * rewritten, and the sessions told. Returns the error to reply with, or undefined.
   */
  readonly convert: (served: Served, schema: DatabaseSchema, json: unknown) => OpError | undefined;
  /** The `_Server` database session `s` reads when it is not the server's (a simulated cluster member's). */
  readonly serverViewOf?: ((s: Session) => Served | undefined) | undefined;
}

/** The handler of one request method: answer request `id` of session `s`. */
export type MethodHandler = (
  ctx: MethodContext,
  s: Session,
  params: unknown[],
  id: unknown,
  method: string,
) => void;

/** The served database named by `params[0]`; otherwise replies with the error and returns undefined. */
function lookupDb(
  ctx: MethodContext,
  s: Session,
  method: string,
  params: unknown[],
  id: unknown,
): Served | undefined {
  const name = params[0];
  if (typeof name !== 'string') {
    s.replyError(
      id,
      syntaxError(params, undefined, `${method} request params must begin with <db-name>`).toJson(),
    );
    return undefined;
  }
  const served =
    (name === '_Server' ? ctx.serverViewOf?.(s) : undefined) ?? ctx.databases.get(name);
  if (served === undefined) {
    s.replyError(
      id,
      syntaxError(
        params,
        'unknown database',
        `${method} request specifies unknown database ${name}`,
      ).toJson(),
    );
  }
  return served;
}

/** A handler for a method whose params begin with a database name. */
function onDatabase(
  handler: (ctx: MethodContext, s: Session, served: Served, params: unknown[], id: unknown) => void,
): MethodHandler {
  return (ctx, s, params, id, method) => {
    const served = lookupDb(ctx, s, method, params, id);
    if (served !== undefined) handler(ctx, s, served, params, id);
  };
}

function monitorMethod(version: MonitorVersion): MethodHandler {
  return onDatabase((ctx, s, served, params, id) =>
    ctx.monitors.create(s, served, version, params, id),
  );
}

function lockName(s: Session, method: string, params: unknown[], id: unknown): string | undefined {
  if (params.length !== 1 || !isId(params[0])) {
    s.replyError(
      id,
      syntaxError(params, undefined, `${method} request params must be <id>`).toJson(),
    );
    return undefined;
  }
  return params[0];
}

function lockMethod(mode: 'lock' | 'steal'): MethodHandler {
  return (ctx, s, params, id) => {
    const name = lockName(s, mode, params, id);
    if (name === undefined) return;
    if (ctx.locks.has(s, name)) {
      s.replyError(
        id,
        syntaxError(params, undefined, `must issue "unlock" before new "${mode}"`).toJson(),
      );
      return;
    }
    const { locked, victim } = ctx.locks.acquire(s, name, mode);
    victim?.notify('stolen', [name]);
    s.reply(id, { locked });
  };
}

const unlock: MethodHandler = (ctx, s, params, id) => {
  const name = lockName(s, 'unlock', params, id);
  if (name === undefined) return;
  if (!ctx.locks.has(s, name)) {
    s.replyError(
      id,
      syntaxError(params, undefined, 'unlock: "unlock" without "lock" or "steal"').toJson(),
    );
    return;
  }
  ctx.locks.release(s, name)?.notify('locked', [name]);
  s.reply(id, {});
};

const setDbChangeAware: MethodHandler = (_ctx, s, params, id, method) => {
  if (params.length !== 1 || typeof params[0] !== 'boolean') {
    s.replyError(
      id,
      syntaxError(params, undefined, `${method}: true or false parameter expected`).toJson(),
    );
    return;
  }
  s.dbChangeAware = params[0];
  s.reply(id, {});
};

/**
 * `convert` ([db-name, new-schema]): as ovsdb-server, a schema of another
 * name is "invalid parameters", data that does not fit the new schema is the
 * error the conversion met, and a successful conversion replies `{}` after
 * the sessions are told (see {@link MethodContext.convert}).
 */
const convert: MethodHandler = (ctx, s, params, id, method) => {
  const served = lookupDb(ctx, s, method, params, id);
  if (served === undefined) return;
  if (served.reserved) {
    s.replyError(
      id,
      new OpError('permission error', `${served.name} is a reserved database`).toJson(),
    );
    return;
  }
  if (params.length !== 2) {
    s.replyError(id, syntaxError(params, undefined, 'array expected').toJson());
    return;
  }
  let schema: DatabaseSchema;
  try {
    schema = parseSchema(params[1]);
  } catch (e) {
    s.replyError(id, new OpError('syntax error', (e as Error).message).toJson());
    return;
  }
  if (schema.name !== served.name) {
    s.replyError(
      id,
      new OpError(
        'invalid parameters',
        `new schema name (${schema.name}) does not match database name (${served.name})`,
      ).toJson(),
    );
    return;
  }
  const error = ctx.convert(served, schema, params[1]);
  if (error !== undefined) s.replyError(id, error.toJson());
  else s.reply(id, {});
};

/** The request methods the server answers (besides `echo`), by name. */
export const METHODS: Readonly<Record<string, MethodHandler>> = {
  transact: onDatabase((ctx, s, served, params, id) =>
    ctx.transactions.transact(s, served, params, id),
  ),
  monitor: monitorMethod(1),
  monitor_cond: monitorMethod(2),
  monitor_cond_since: monitorMethod(3),
  monitor_cond_change: (ctx, s, params, id) => ctx.monitors.changeConditions(s, params, id),
  monitor_cancel: (ctx, s, params, id) => ctx.monitors.cancel(s, params, id),
  get_schema: onDatabase((_ctx, s, served, _params, id) => s.reply(id, served.schemaJson)),
  list_dbs: (ctx, s, _params, id) => s.reply(id, ctx.databases.names()),
  get_server_id: (ctx, s, _params, id) => s.reply(id, ctx.serverId),
  lock: lockMethod('lock'),
  steal: lockMethod('steal'),
  unlock,
  set_db_change_aware: setDbChangeAware,
  convert,
};

/** Answer request `id` of session `s` with the handler of `method` ("unknown method" when there is none). */
export function dispatchRequest(
  ctx: MethodContext,
  s: Session,
  method: string,
  params: unknown[],
  id: unknown,
): void {
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (handler === undefined) s.replyError(id, 'unknown method');
  else handler(ctx, s, params, id, method);
}

/** A notification from session `s`: only `cancel` (drop a pending transaction) does anything. */
export function dispatchNotification(
  ctx: MethodContext,
  s: Session,
  method: string,
  params: unknown[],
): void {
  if (method !== 'cancel' || params.length !== 1) return;
  const t = s.pending.get(jsonKey(params[0])) as Trigger | undefined;
  if (t !== undefined) ctx.transactions.cancel(t, true);
}
