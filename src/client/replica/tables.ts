/**
 * The state of a replica, which its two roles share: per table, the rows
 * (immutable objects, frozen by default), the schema and client indexes
 * over them, the event handlers and the `waitFor` waiters; and the ordered
 * event queue. `replica.ts` reads it (reads, events, waits), `feed.ts`
 * changes it (monitor replies and updates).
 * @module
 */

import type { DatabaseModel, RowOf, TableMap, TableName } from '../../ovsdb/schema/model.js';
import type { TableSchema } from '../../ovsdb/schema/schema-types.js';
import type { Row, RowCodec } from '../../rows/codec.js';
import {
  type ClientIndexSpec,
  IndexError,
  MultiIndex,
  type UniqueIndex,
} from '../../rows/indexes.js';
import {
  type ErrorReport,
  EventQueue,
  type EventSource,
  guardReport,
  type ReplicaEventStats,
} from './event-queue.js';

/** Client indexes per table: index name → spec (see {@link ClientIndexSpec}). */
export type IndexesOption<DB extends TableMap> = {
  readonly [T in TableName<DB>]?: Readonly<Record<string, ClientIndexSpec<RowOf<DB, T>>>>;
};

/** Options of a replica. */
export interface ReplicaOptions<DB extends TableMap = TableMap> {
  /** Client indexes per table. */
  readonly indexes?: IndexesOption<DB> | undefined;
  /**
   * Freeze rows (and their set and map values) as they enter the replica, so
   * that an accidental write throws. Default true.
   */
  readonly freeze?: boolean | undefined;
  /** Queue length at which {@link ReplicaOptions.onPressure} asks to pause reading. Default 10,000. */
  readonly highWaterMark?: number | undefined;
  /** Queue length at which reading resumes. Default half the high-water mark. */
  readonly lowWaterMark?: number | undefined;
  /** Called with true to ask the owner to stop reading, and false to resume. */
  readonly onPressure?: ((pause: boolean) => void) | undefined;
  /** Called when a handler throws or rejects. Default: `console.error`. */
  readonly onHandlerError?: ((error: unknown, context: string) => void) | undefined;
}

/** A pending `waitFor`. */
export interface Waiter {
  readonly predicate: (row: Row) => boolean;
  readonly resolve: (row: Row) => void;
  readonly reject: (error: unknown) => void;
}

/** One table of a replica. */
export interface TableState extends EventSource {
  readonly schema: TableSchema;
  /** How the monitored columns are read; undefined while the table is not monitored. */
  codec: RowCodec | undefined;
  /** The model's columns the server lacks (absent from the rows). */
  absent: readonly string[];
  readonly rows: Map<string, Row>;
  unique: UniqueIndex[];
  client: Map<string, MultiIndex>;
  /** Why a client index is unusable (its column is not monitored). */
  disabled: Map<string, string>;
  readonly waiters: Set<Waiter>;
}

/** The tables and the event queue of one replica. */
export class ReplicaTables<DB extends TableMap = TableMap> {
  readonly tables = new Map<string, TableState>();
  readonly queue: EventQueue;
  readonly report: ErrorReport;
  readonly freeze: boolean;
  readonly indexSpecs: IndexesOption<DB>;
  /** Why the replica's owner closed: `waitFor` rejects with it from then on. */
  closed: unknown;

  /** @throws IndexError for a client index on a column the table does not have. */
  constructor(
    readonly model: DatabaseModel<DB>,
    options: ReplicaOptions<DB> = {},
  ) {
    this.report = guardReport(
      options.onHandlerError ??
        ((error, context) => {
          console.error(`replica: ${context} threw:`, error);
        }),
    );
    this.queue = new EventQueue({
      highWaterMark: options.highWaterMark,
      lowWaterMark: options.lowWaterMark,
      onPressure: options.onPressure,
      report: this.report,
    });
    this.freeze = options.freeze ?? true;
    this.indexSpecs = options.indexes ?? {};
    for (const [name, schema] of Object.entries(model.schema.tables)) {
      this.tables.set(name, {
        name,
        schema,
        codec: undefined,
        absent: [],
        rows: new Map(),
        unique: [],
        client: new Map(),
        disabled: new Map(),
        handlers: { insert: [], update: [], delete: [] },
        waiters: new Set(),
      });
    }
    for (const table of Object.keys(this.indexSpecs)) {
      const st = this.state(table);
      // Validate the specs now, so that a typo fails at construction.
      for (const [name, spec] of Object.entries(this.specsOf(table))) {
        new MultiIndex(name, st.schema, spec);
      }
    }
  }

  /** Queue and delivery counters. */
  get eventStats(): ReplicaEventStats {
    return this.queue.stats;
  }

  /**
   * The state of `table`.
   * @throws IndexError for a table the model does not have.
   */
  state(table: string): TableState {
    const st = this.tables.get(table);
    if (st === undefined) {
      throw new IndexError(table, '-', `database ${this.model.name} has no table ${table}`);
    }
    return st;
  }

  /** The client indexes declared for `table`, by name. */
  specsOf(table: string): Readonly<Record<string, ClientIndexSpec>> {
    return (
      (this.indexSpecs as Record<string, Record<string, ClientIndexSpec> | undefined>)[table] ?? {}
    );
  }
}
