/**
 * The database client's {@link TransactionExecutor}: it sends each
 * transaction on the current session once it is in sync (at once when it
 * is), after checking it against the server's schema and the fence's lock,
 * and counts the failures in the client's metrics. The client's replica
 * serves `verify` and outcome resolution; its reconnection brings the
 * connection back after a lost reply.
 * @module
 */

import type { ClientObservability } from '../observability/metrics.js';
import { checkOperations } from '../ovsdb/schema/compat-checks.js';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import {
  type ReplicaReader,
  sendOptionsOf,
  type TransactionExecutor,
  type TransactRequest,
} from '../transactions/executor.js';
import { rpcErrorKind } from './metrics.js';
import type { Reconnector } from './reconnect.js';
import type { Session } from './session.js';

/** Sends the transactions of one database client. */
export class ClientExecutor<DB extends TableMap> implements TransactionExecutor<DB> {
  readonly cancels = true;

  constructor(
    private readonly connection: Reconnector<DB>,
    readonly model: DatabaseModel<DB>,
    readonly replica: ReplicaReader<DB>,
    readonly fence: string | undefined,
    readonly observability: ClientObservability | undefined,
  ) {}

  send(request: TransactRequest): void {
    const c = this.connection;
    const s = c.session;
    // In sync (the usual case): send at once, without a promise step.
    if (
      c.closedError === undefined &&
      !request.signal?.aborted &&
      s?.synced === true &&
      s.endReason === undefined &&
      !s.conn.isClosed
    ) {
      this.sendOn(s, request);
      return;
    }
    c.whenConnected(request.signal, request.deadline).then(
      (session) => this.sendOn(session, request),
      (e: unknown) => request.onError(e),
    );
  }

  whenSynced(options: { readonly signal?: AbortSignal | undefined } = {}): Promise<void> {
    return this.connection.whenConnected(options.signal, undefined).then(() => undefined);
  }

  failed(error: unknown): void {
    this.observability?.metrics?.rpcError('transact', rpcErrorKind(error));
  }

  /**
   * Check `request` against the server's schema (a table or column it
   * lacks) and its fence (a lock this session does not hold), then send it.
   */
  private sendOn(s: Session, request: TransactRequest): void {
    const fence = request.fence;
    try {
      if (s.compat && s.schema) {
        checkOperations(
          s.compat,
          s.schema,
          fence === undefined ? request.ops : request.ops.slice(1),
        );
      }
      if (fence !== undefined) {
        const refused = this.connection.locks.refusal(fence, s);
        if (refused !== undefined) throw refused;
      }
    } catch (e) {
      this.failed(e);
      request.onError(e);
      return;
    }
    request.via = s.remote;
    s.conn.sendTransact(this.model.name, request.ops, request, sendOptionsOf(request));
  }
}
