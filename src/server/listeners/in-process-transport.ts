/**
 * An in-process connection to the in-memory server: a client
 * {@link Transport} (of kind `message`) whose other end is a server
 * {@link SessionChannel}, with no socket in between. Messages are delivered
 * asynchronously (on a microtask), in order, as a socket would deliver them.
 * @module
 */

import { joinPieces, type TextInPieces } from '../../ovsdb/wire/json-stringify.js';
import type { Transport, TransportHandlers } from '../../ovsdb/wire/transport.js';
import type { ChannelHandlers, SessionChannel } from '../rpc/channel.js';

type Item = { readonly text: string } | { readonly close: Error | undefined };

/**
 * The client end of an in-process connection: a {@link Transport} that can
 * also stop and restart delivery (flow control, like pausing a socket).
 */
export interface InProcessTransport extends Transport {
  /** Stop delivering messages to the client until {@link InProcessTransport.resume}. */
  pause(): void;
  /** Deliver again. */
  resume(): void;
}

/** One direction of the pipe: queued items delivered on a microtask. */
class Direction {
  private items: Item[] = [];
  private scheduled = false;
  /** While true, nothing is delivered. */
  paused = false;

  constructor(private readonly deliver: (item: Item) => boolean) {}

  push(item: Item): void {
    this.items.push(item);
    this.schedule();
  }

  /** Deliver what is queued (called again when the receiver attaches). */
  schedule(): void {
    if (this.paused || this.scheduled || this.items.length === 0) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      const items = this.items;
      this.items = [];
      for (let i = 0; i < items.length; i++) {
        if (this.paused || !this.deliver(items[i] as Item)) {
          // Not attached yet: keep the rest for later.
          this.items = items.slice(i).concat(this.items);
          return;
        }
      }
    });
  }
}

let counter = 0;

/**
 * Create a connected pair: the client transport and the server channel.
 *
 * ```ts
 * const { client, server } = createInProcessPair();
 * // hand `server` to the OVSDB server; use `client` with `new OvsdbConnection(client)`
 * ```
 */
export function createInProcessPair(): { client: InProcessTransport; server: SessionChannel } {
  counter++;
  const name = `inprocess#${counter}`;
  let clientHandlers: TransportHandlers | undefined;
  let serverHandlers: ChannelHandlers | undefined;
  let clientClosed = false;
  let serverClosed = false;

  const toClient = new Direction((item) => {
    if (clientHandlers === undefined) return false;
    if ('text' in item) clientHandlers.message(item.text);
    else clientHandlers.close(item.close);
    return true;
  });
  const toServer = new Direction((item) => {
    if (serverHandlers === undefined) return false;
    if ('text' in item) serverHandlers.message(item.text);
    else serverHandlers.close();
    return true;
  });

  const shutdown = (clientError: Error | undefined): void => {
    if (!clientClosed) {
      clientClosed = true;
      toClient.push({ close: clientError });
    }
    if (!serverClosed) {
      serverClosed = true;
      toServer.push({ close: undefined });
    }
  };

  const client: InProcessTransport = {
    kind: 'message',
    description: name,
    attach(handlers) {
      if (clientHandlers !== undefined) throw new Error(`${name}: transport already attached`);
      clientHandlers = handlers;
      toClient.schedule();
    },
    write(text) {
      if (clientClosed) return false;
      toServer.push({ text });
      return true;
    },
    close() {
      shutdown(undefined);
    },
    pause() {
      toClient.paused = true;
    },
    resume() {
      toClient.paused = false;
      toClient.schedule();
    },
  };

  const server: SessionChannel = {
    kind: 'message',
    name,
    probes: false,
    attach(handlers) {
      serverHandlers = handlers;
      toServer.schedule();
    },
    write(text: TextInPieces) {
      if (serverClosed) return;
      let whole: string;
      try {
        whole = joinPieces(text);
      } catch (e) {
        // A message is one string here: one longer than a string can be ends the connection.
        shutdown(new Error(`${name}: ${(e as Error).message}: the message cannot be delivered`));
        return;
      }
      toClient.push({ text: whole });
    },
    close() {
      shutdown(undefined);
    },
    abort() {
      shutdown(new Error(`${name}: connection reset by the server`));
    },
  };

  return { client, server };
}
