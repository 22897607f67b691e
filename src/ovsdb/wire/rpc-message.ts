/**
 * The shape of a JSON-RPC 1.0 message in ovsdb-server's dialect (see
 * `rpc.ts`), and what a request's handler's answer becomes on the wire.
 * @module
 */

import { RpcError } from './errors.js';
import { errorText } from './json.js';

const MEMBERS = new Set(['method', 'params', 'result', 'error', 'id']);

/**
 * Why `message` is not a JSON-RPC message of the dialect, or undefined
 * when it is one: a request or notification (`method`, `params`, `id`) or a
 * reply (`id`, and `result` or a non-null `error`).
 */
export function messageProblem(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return 'a message must be a JSON object';
  }
  const m = message as Record<string, unknown>;
  for (const key of Object.keys(m)) {
    if (!MEMBERS.has(key)) return `unexpected member "${key}"`;
  }
  if (Object.hasOwn(m, 'method')) {
    const method = m['method'];
    if (typeof method !== 'string') return '"method" must be a string';
    if (!Array.isArray(m['params'])) return `"params" of "${method}" must be an array`;
    if ((m['result'] ?? null) !== null || (m['error'] ?? null) !== null) {
      return `"${method}" request carries "result" or "error"`;
    }
    return undefined;
  }
  if (Object.hasOwn(m, 'params')) return '"params" without "method"';
  if (m['id'] === undefined || m['id'] === null) return 'a reply must have a non-null "id"';
  if ((m['error'] ?? null) === null && !Object.hasOwn(m, 'result')) {
    return 'a reply needs "result" or a non-null "error"';
  }
  return undefined;
}

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === 'object' || typeof v === 'function') &&
    v !== null &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}

/** The `error` of the reply to a request whose handler threw `e`. */
export function errorPayload(e: unknown): unknown {
  if (e instanceof RpcError) return e.error;
  return { error: errorText(e) };
}
