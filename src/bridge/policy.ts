/**
 * What a bridge client may ask of the OVSDB server: an allowlist of
 * databases, an allowlist of methods, and a read-only mode. Every request is
 * checked before it is forwarded; a refused one never reaches the server
 * and gets a JSON-RPC error reply `{"error": "permission error", "details":
 * <why>, "refused_by": "bridge"}` (`permission error` is how ovsdb-server
 * names its own access-control errors), with `"operation": <index>` when one
 * operation of a `transact` was refused. The client raises it as a
 * `TransactionRefusedError` with `refusedBy: 'bridge'`.
 *
 * ```ts
 * const policy = new BridgePolicy({ allowDbs: ['OVN_Northbound'], readOnly: true });
 * policy.check('transact', ['OVN_Northbound', { op: 'select', table: 'ACL', where: [] }]); // { allowed: true }
 * policy.check('transact', ['OVN_Northbound', { op: 'delete', table: 'ACL', where: [] }]);
 * // { allowed: false, details: 'read-only bridge: transact operation 0 is "delete"; only select, wait and comment are allowed', operation: 0 }
 * ```
 * @module
 */

/** Options of {@link BridgePolicy}. */
export interface BridgePolicyOptions {
  /** Databases clients may name (in `get_schema`, `transact`, the monitors, …). Default: every database. `_Server` must be listed to be reachable. */
  readonly allowDbs?: readonly string[] | undefined;
  /** Methods clients may call. Default: every method the bridge knows. `echo` and `cancel` are always allowed. */
  readonly allowMethods?: readonly string[] | undefined;
  /** Allow only reading: see {@link READ_ONLY_METHODS} and {@link READ_ONLY_TRANSACT_OPS}. */
  readonly readOnly?: boolean | undefined;
}

/** The outcome of {@link BridgePolicy.check}. */
export type PolicyDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly details: string;
      /** For a read-only `transact`: the index of the operation refused. */
      readonly operation?: number;
    };

/**
 * The methods the bridge knows, with the position of the database name in
 * their params (`-1`: the method names no database).
 */
export const KNOWN_METHODS: Readonly<Record<string, number>> = {
  list_dbs: -1,
  get_schema: 0,
  transact: 0,
  cancel: -1,
  monitor: 0,
  monitor_cond: 0,
  monitor_cond_since: 0,
  monitor_cond_change: -1,
  monitor_cancel: -1,
  lock: -1,
  steal: -1,
  unlock: -1,
  echo: -1,
  get_server_id: -1,
  set_db_change_aware: -1,
  convert: 0,
};

/** Methods a read-only bridge forwards (`transact` only with {@link READ_ONLY_TRANSACT_OPS}). */
export const READ_ONLY_METHODS: readonly string[] = [
  'list_dbs',
  'get_schema',
  'transact',
  'cancel',
  'monitor',
  'monitor_cond',
  'monitor_cond_since',
  'monitor_cond_change',
  'monitor_cancel',
  'echo',
  'get_server_id',
  'set_db_change_aware',
];

/** The `transact` operations a read-only bridge forwards. */
export const READ_ONLY_TRANSACT_OPS: readonly string[] = ['select', 'wait', 'comment'];

/** Methods allowed whatever the allowlist says: they reach no data. */
const ALWAYS_ALLOWED = new Set(['echo', 'cancel']);

/** The access rules of one bridge; immutable. */
export class BridgePolicy {
  /** The database allowlist, or undefined for every database. */
  readonly allowDbs: ReadonlySet<string> | undefined;
  /** The method allowlist, or undefined for every known method. */
  readonly allowMethods: ReadonlySet<string> | undefined;
  /** Whether only reading is allowed. */
  readonly readOnly: boolean;

  /**
   * @throws RangeError when `allowMethods` names a method the bridge does not know
   *   (see {@link KNOWN_METHODS}), or an allowlist is empty.
   */
  constructor(options: BridgePolicyOptions = {}) {
    if (options.allowDbs !== undefined) {
      if (options.allowDbs.length === 0) throw new RangeError('allowDbs: the list is empty');
      this.allowDbs = new Set(options.allowDbs);
    }
    if (options.allowMethods !== undefined) {
      if (options.allowMethods.length === 0)
        throw new RangeError('allowMethods: the list is empty');
      for (const m of options.allowMethods) {
        if (!Object.hasOwn(KNOWN_METHODS, m)) {
          throw new RangeError(
            `allowMethods: unknown method "${m}" (known: ${Object.keys(KNOWN_METHODS).join(', ')})`,
          );
        }
      }
      this.allowMethods = new Set(options.allowMethods);
    }
    this.readOnly = options.readOnly ?? false;
  }

  /** True when the policy restricts nothing. */
  get isOpen(): boolean {
    return !this.readOnly && this.allowDbs === undefined && this.allowMethods === undefined;
  }

  /** Whether `db` may be named; `list_dbs` replies are filtered with it. */
  allowsDatabase(db: string): boolean {
    return this.allowDbs === undefined || this.allowDbs.has(db);
  }

  /**
   * Decide on one request or notification from a client. Unknown methods
   * are refused unless the policy restricts nothing (then the server answers
   * them itself).
   */
  check(method: string, params: readonly unknown[]): PolicyDecision {
    const known = Object.hasOwn(KNOWN_METHODS, method);
    if (!known) {
      if (this.isOpen) return ALLOWED;
      return deny(`method "${method}" is not forwarded by this bridge`);
    }
    if (ALWAYS_ALLOWED.has(method)) return ALLOWED;
    if (this.allowMethods !== undefined && !this.allowMethods.has(method)) {
      return deny(`method "${method}" is not allowed by this bridge`);
    }
    if (this.readOnly && !READ_ONLY_METHODS.includes(method)) {
      return deny(`read-only bridge: method "${method}" is not allowed`);
    }
    const dbAt = KNOWN_METHODS[method] ?? -1;
    if (dbAt >= 0 && this.allowDbs !== undefined) {
      const db = params[dbAt];
      if (typeof db !== 'string') {
        return deny(`${method}: params[${dbAt}] must name a database`);
      }
      if (!this.allowDbs.has(db)) {
        return deny(`${method}: database "${db}" is not allowed by this bridge`);
      }
    }
    if (this.readOnly && method === 'transact') return checkReadOnlyTransact(params);
    return ALLOWED;
  }
}

const ALLOWED: PolicyDecision = { allowed: true };

function deny(details: string, operation?: number): PolicyDecision {
  return operation === undefined
    ? { allowed: false, details }
    : { allowed: false, details, operation };
}

function checkReadOnlyTransact(params: readonly unknown[]): PolicyDecision {
  for (let i = 1; i < params.length; i++) {
    const op = params[i];
    const name =
      typeof op === 'object' && op !== null && !Array.isArray(op)
        ? (op as Record<string, unknown>)['op']
        : undefined;
    if (typeof name !== 'string') {
      return deny(`read-only bridge: transact operation ${i - 1} has no "op" name`, i - 1);
    }
    if (!READ_ONLY_TRANSACT_OPS.includes(name)) {
      return deny(
        `read-only bridge: transact operation ${i - 1} is "${name}"; only ${READ_ONLY_TRANSACT_OPS.slice(0, -1).join(', ')} and ${READ_ONLY_TRANSACT_OPS.at(-1)} are allowed`,
        i - 1,
      );
    }
  }
  return ALLOWED;
}
