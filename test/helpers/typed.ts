/**
 * Typed transactions over any executor, in the shape of the database
 * client's own (`transact`, `transactBatches`): what the tests that run the
 * same scenarios over a database client and over a bare connection
 * (`connectionExecutor`) use.
 */

import type { DatabaseClient } from '../../src/client/client.js';
import type { TableMap } from '../../src/ovsdb/schema/model.js';
import { transactBatches } from '../../src/transactions/batches.js';
import type { TransactionExecutor, TransactRequest } from '../../src/transactions/executor.js';
import { transact } from '../../src/transactions/run.js';

/** The typed transactions of a database client (or of {@link typedOver}). */
export type Transacting<DB extends TableMap> = Pick<
  DatabaseClient<DB>,
  'transact' | 'transactBatches'
> & { readonly executor: TransactionExecutor<DB> };

/** `transact` and `transactBatches` over `executor`. */
export function typedOver<DB extends TableMap>(executor: TransactionExecutor<DB>): Transacting<DB> {
  return {
    executor,
    transact: ((build: never, options?: never) =>
      transact(executor, build, options)) as Transacting<DB>['transact'],
    transactBatches: (items, size, build, options) =>
      transactBatches(executor, items, size, build, options),
  };
}

/**
 * `client` (a database client, or an object made from one) with every
 * request its transactions send handed to `send` first, which forwards it
 * (now or later) with `forward()`: to count what is sent, or to let another
 * client act before a send. The rest of the client is `client`'s own.
 */
export function interceptSends<
  C extends { readonly executor: { send(request: TransactRequest): void } },
>(client: C, send: (request: TransactRequest, forward: () => void) => void): C {
  const inner = client.executor;
  const executor: unknown = Object.create(inner, {
    send: { value: (request: TransactRequest) => send(request, () => inner.send(request)) },
  });
  return Object.create(client, { executor: { value: executor } }) as C;
}
