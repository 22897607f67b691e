/**
 * What the test kit's tests share: closing what a test opened, and waiting
 * for a client's next status event of a kind.
 */

import { afterEach } from 'vitest';
import type { StatusEvent } from '../../src/client/index.js';

/**
 * Close what each test of the file opens, newest first, after the test:
 * `track(x)` registers `x` (anything with `close()`) and returns it.
 */
export function closeAfterEach(): <T extends { close(): unknown }>(x: T) => T {
  const open: { close(): unknown }[] = [];
  afterEach(async () => {
    for (const x of open.splice(0).reverse()) await x.close();
  });
  return (x) => {
    open.push(x);
    return x;
  };
}

/** The client's next status event of `type`; call it before causing the event. */
export function nextStatus(
  client: { onStatus(handler: (event: StatusEvent) => void): () => void },
  type: StatusEvent['type'],
): Promise<StatusEvent> {
  return new Promise((resolve) => {
    const off = client.onStatus((e) => {
      if (e.type !== type) return;
      off();
      resolve(e);
    });
  });
}
