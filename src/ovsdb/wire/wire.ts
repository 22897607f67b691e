/**
 * The raw OVSDB wire types: the JSON shapes of RFC 7047 plus the Open vSwitch
 * extensions (`monitor_cond`, `update2`, `update3`, insert with `uuid`, select
 * with `sort`). Values here are what travels on the wire; the codec maps them
 * to and from the JS representation.
 * @module
 */

/** `["uuid", "<36-character UUID>"]`: a reference to an existing row. */
export type WireUuid = readonly [tag: 'uuid', uuid: string];

/** `["named-uuid", "<name>"]`: a reference to a row inserted in the same transaction. */
export type WireNamedUuid = readonly [tag: 'named-uuid', name: string];

/**
 * An atom: integer or real (`number`; an integer beyond ±(2^53−1) is a
 * `bigint`, exact on the wire), `boolean`, `string`, or a UUID reference.
 */
export type WireAtom = string | number | bigint | boolean | WireUuid | WireNamedUuid;

/** `["set", [atom, …]]`. A one-element set may also travel as the bare atom. */
export type WireSet = readonly [tag: 'set', atoms: readonly WireAtom[]];

/** `["map", [[key, value], …]]`. Maps always use this form. */
export type WireMap = readonly [
  tag: 'map',
  pairs: readonly (readonly [key: WireAtom, value: WireAtom])[],
];

/** A datum as JSON: an atom, a set or a map. */
export type WireValue = WireAtom | WireSet | WireMap;

/** A row (or part of one) as JSON: column name → datum. */
export type WireRow = Readonly<Record<string, WireValue>>;

/** Comparison functions of a {@link Condition}. */
export type ConditionFunction = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'includes' | 'excludes';

/**
 * A condition: `[column, function, value]`, e.g. `["name", "==", "sw0"]`.
 * The literals `true` and `false` (always / never) are an Open vSwitch
 * extension, mostly used in `monitor_cond` `where` clauses.
 */
export type Condition =
  | readonly [column: string, fn: ConditionFunction, value: WireValue]
  | boolean;

/** Mutators of a {@link Mutation}. */
export type Mutator = '+=' | '-=' | '*=' | '/=' | '%=' | 'insert' | 'delete';

/** A mutation: `[column, mutator, value]`, e.g. `["ports", "insert", ["set", […]]]`. */
export type Mutation = readonly [column: string, mutator: Mutator, value: WireValue];

/**
 * `insert`: add a row. `uuid-name` names it for `named-uuid` references in the
 * same transaction; `uuid` (Open vSwitch 2.13+) asks for that exact UUID.
 */
export interface InsertOperation {
  readonly op: 'insert';
  readonly table: string;
  readonly row: WireRow;
  readonly 'uuid-name'?: string;
  readonly uuid?: string;
}

/** `select`: read rows. `sort` (an Open vSwitch extension) orders them by those columns. */
export interface SelectOperation {
  readonly op: 'select';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly columns?: readonly string[];
  readonly sort?: readonly string[];
}

/** `update`: set columns of every matching row. */
export interface UpdateOperation {
  readonly op: 'update';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly row: WireRow;
}

/** `mutate`: apply mutations to every matching row. */
export interface MutateOperation {
  readonly op: 'mutate';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly mutations: readonly Mutation[];
}

/** `delete`: remove every matching row. */
export interface DeleteOperation {
  readonly op: 'delete';
  readonly table: string;
  readonly where: readonly Condition[];
}

/**
 * `wait`: block (up to `timeout` ms) until the selected `columns` of the
 * matching rows are (`==`) or are not (`!=`) exactly `rows`.
 */
export interface WaitOperation {
  readonly op: 'wait';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly columns?: readonly string[];
  readonly until: '==' | '!=';
  readonly rows: readonly WireRow[];
  readonly timeout?: number;
}

/** `commit`: with `durable: true`, reply only once the transaction is on disk. */
export interface CommitOperation {
  readonly op: 'commit';
  readonly durable: boolean;
}

/** `abort`: make the transaction fail with `aborted`. */
export interface AbortOperation {
  readonly op: 'abort';
}

/** `comment`: a note for the server's log. */
export interface CommentOperation {
  readonly op: 'comment';
  readonly comment: string;
}

/** `assert`: fail with `not owner` unless this session holds `lock`. */
export interface AssertOperation {
  readonly op: 'assert';
  readonly lock: string;
}

/** One operation of a `transact` request. */
export type Operation =
  | InsertOperation
  | SelectOperation
  | UpdateOperation
  | MutateOperation
  | DeleteOperation
  | WaitOperation
  | CommitOperation
  | AbortOperation
  | CommentOperation
  | AssertOperation;

/**
 * The result of a successful operation: `uuid` for insert, `rows` for select,
 * `count` for update/mutate/delete, and nothing for the others.
 */
export interface OperationResult {
  readonly uuid?: WireUuid;
  readonly rows?: readonly WireRow[];
  readonly count?: number;
}

/** A failed operation's (or failed commit's) result entry. */
export interface OperationError {
  readonly error: string;
  readonly details?: string;
}

/** Which kinds of change a monitor reports (all true by default). */
export interface MonitorSelect {
  readonly initial?: boolean;
  readonly insert?: boolean;
  readonly delete?: boolean;
  readonly modify?: boolean;
}

/**
 * What to monitor in one table: `columns` (default all), `where` (for
 * `monitor_cond*`; default all rows) and `select`.
 */
export interface MonitorRequest {
  readonly columns?: readonly string[];
  readonly where?: readonly Condition[];
  readonly select?: MonitorSelect;
}

/** Table name → one monitor request or several. */
export type MonitorRequests = Readonly<Record<string, MonitorRequest | readonly MonitorRequest[]>>;

/** One row's change in an `update` notification / `monitor` reply. */
export interface RowUpdate {
  /** The row before the change (absent for an insert); only changed columns for a modify. */
  readonly old?: WireRow;
  /** The row after the change (absent for a delete). */
  readonly new?: WireRow;
}

/** Row UUID → change, for one table. */
export type TableUpdate = Readonly<Record<string, RowUpdate>>;

/** Table name → changes: the payload of `update` and of a `monitor` reply. */
export type TableUpdates = Readonly<Record<string, TableUpdate>>;

/**
 * One row's change in `update2`/`update3` (and `monitor_cond*` replies):
 * exactly one of `initial`, `insert`, `delete` (null) or `modify` (diffs: a set
 * column gives the symmetric difference, a map column the changed pairs, a
 * scalar the new value).
 */
export type RowUpdate2 =
  | {
      readonly initial: WireRow;
      readonly insert?: never;
      readonly delete?: never;
      readonly modify?: never;
    }
  | {
      readonly insert: WireRow;
      readonly initial?: never;
      readonly delete?: never;
      readonly modify?: never;
    }
  | {
      readonly delete: null;
      readonly initial?: never;
      readonly insert?: never;
      readonly modify?: never;
    }
  | {
      readonly modify: WireRow;
      readonly initial?: never;
      readonly insert?: never;
      readonly delete?: never;
    };

/** Row UUID → change, for one table. */
export type TableUpdate2 = Readonly<Record<string, RowUpdate2>>;

/** Table name → changes: the payload of `update2`/`update3` and `monitor_cond*` replies. */
export type TableUpdates2 = Readonly<Record<string, TableUpdate2>>;
