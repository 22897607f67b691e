/**
 * The byte or message pipe a JSON-RPC peer runs over. Stream transports (tcp,
 * unix, ssl) deliver raw chunks that the peer frames; message transports
 * (WebSocket) deliver whole messages. This module imports nothing from Node so
 * that message transports can be bundled for browsers.
 * @module
 */

/** Events a transport reports to its single consumer (the JSON-RPC peer). */
export interface TransportHandlers {
  /** Raw bytes from a stream transport; the peer frames them. */
  data(chunk: Uint8Array): void;
  /** One complete message (text) from a message transport. */
  message(text: string): void;
  /** The transport can take more writes after `write` returned false. */
  drain(): void;
  /** The transport closed; `error` says why when it was not a clean close. */
  close(error?: Error): void;
}

/** A duplex pipe for JSON-RPC messages. */
export interface Transport {
  /** `stream` transports need framing; `message` transports deliver one message per `message` event. */
  readonly kind: 'stream' | 'message';
  /** A description for logs and errors, e.g. `unix:/tmp/db.sock`. */
  readonly description: string;
  /** Attach the consumer. Called once, before any event is delivered. */
  attach(handlers: TransportHandlers): void;
  /**
   * Send one serialized JSON-RPC message. Returns false when the transport's
   * buffer is above its high-water mark; the caller should wait for `drain`.
   */
  write(text: string): boolean;
  /** Close the transport; `close` is reported once. */
  close(): void;
}
