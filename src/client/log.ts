/**
 * The client's logging: the {@link Logger} a program passes, called so that
 * a failing logger never breaks the client.
 * @module
 */

import { errorText } from '../ovsdb/wire/json.js';

export { errorText };

/** Where the client writes what it does. Every method is optional. */
export interface Logger {
  debug?(message: string, data?: Record<string, unknown>): void;
  info?(message: string, data?: Record<string, unknown>): void;
  warn?(message: string, data?: Record<string, unknown>): void;
  error?(message: string, data?: Record<string, unknown>): void;
}

/** Writes one log line at `level` (nothing when the logger lacks that level). */
export type Log = (level: keyof Logger, message: string, data?: Record<string, unknown>) => void;

/** A {@link Log} writing to `logger`; an exception of the logger is dropped. */
export function createLog(logger: Logger): Log {
  return (level, message, data) => {
    const fn = logger[level];
    if (!fn) return;
    try {
      fn.call(logger, message, data);
    } catch {
      // A failing logger must not break the client.
    }
  };
}

/** The default `onHandlerError`: the logger's `error`, else `console.error`. */
export function logHandlerError(logger: Logger): (error: unknown, context: string) => void {
  return (error, context) => {
    if (logger.error) logger.error(`${context} threw: ${errorText(error)}`, { error });
    else console.error(`ovnkit: ${context} threw:`, error);
  };
}
