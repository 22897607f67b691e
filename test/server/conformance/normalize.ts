/**
 * Normalization of what a server sends, so that the real ovsdb-server's and
 * the in-memory server's transcripts can be compared with `toEqual`.
 *
 * Only what cannot match is normalized (each item is listed in
 * `docs/conformance.md`):
 * - every normalization of the engine's differential harness
 *   (`test/server/harness.ts`): row and `_version` UUIDs become labels in
 *   order of first appearance, `select` rows are compared as multisets, the
 *   milliseconds of `"wait" timed out after N ms` become `N`, the two rows
 *   of an index conflict are named in label order, and (random sequences
 *   only) the row a multi-row commit error names is not compared;
 * - transaction ids of `update3` and of `monitor_cond_since` replies become
 *   `TXN` (a standalone ovsdb-server always sends all zeros; the in-memory
 *   server has a history and sends real ids, checked separately);
 * - the rows of a `<table-updates>` are ordered by label (they are keyed by
 *   random UUIDs; JSON member order carries no meaning).
 * @module
 */

import { stringifyJson } from '../../../src/ovsdb/wire/json-stringify.js';
import { Normalizer } from '../harness.js';
import type { Message } from './wire-session.js';

const UUID_IN_STRING =
  /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;

/** Normalizes the messages of one server (labels are per server). */
export class TranscriptNormalizer {
  readonly base: Normalizer;
  private readonly known = new Map<string, string>();

  /** @param loose - see {@link Normalizer}. */
  constructor(readonly loose = false) {
    this.base = new Normalizer(loose);
  }

  /** A `transact` result array, given the operations sent. */
  results(ops: readonly unknown[], results: readonly unknown[]): unknown[] {
    const out = this.base.results(ops, results);
    this.learn(results);
    return out;
  }

  /** A dump (`{table: rows[]}`). */
  dump(d: Record<string, unknown[]>): Record<string, unknown[]> {
    return this.base.dump(d);
  }

  /** Any JSON value (UUIDs become labels). */
  value(v: unknown): unknown {
    const out = this.base.value(v);
    this.learn(v);
    return out;
  }

  /**
   * A `<table-updates>` / `<table-updates2>` object: tables sorted, rows as
   * `[label, row-update]` pairs sorted by label.
   */
  updates(u: unknown): unknown {
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return this.value(u);
    const out: Record<string, unknown> = {};
    for (const table of Object.keys(u).sort()) {
      const rows = (u as Record<string, Record<string, unknown>>)[table] ?? {};
      const uuids = Object.keys(rows);
      // Label rows already seen first (in label order), then new ones by content.
      const keyOf = (uuid: string): string => {
        const l = this.known.get(uuid.toLowerCase());
        if (l !== undefined) return `0${l.padStart(8, '0')}`;
        return `1${stringifyJson(rows[uuid]).replace(UUID_IN_STRING, '?')}`;
      };
      uuids.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
      out[table] = uuids.map((uuid) => [this.value(uuid), this.value(rows[uuid])]);
    }
    return out;
  }

  /** A monitor notification's params (`update`, `update2`, `update3`). */
  notification(method: string, params: readonly unknown[]): unknown {
    if (method === 'update3') {
      return [this.value(params[0]), txn(params[1]), this.updates(params[2])];
    }
    if (method === 'update' || method === 'update2') {
      return [this.value(params[0]), this.updates(params[1])];
    }
    return this.value(params);
  }

  /** A `monitor_cond_since` result `[found, last-txn-id, updates]`. */
  sinceResult(r: unknown): unknown {
    if (!Array.isArray(r) || r.length !== 3) return this.value(r);
    return [r[0], txn(r[1]), this.updates(r[2])];
  }

  /** A whole message, knowing the request it answers (if it is a reply). */
  message(m: Message, request?: { method: string; params: readonly unknown[] }): unknown {
    if (typeof m.method === 'string') {
      return {
        method: m.method,
        params: this.notification(m.method, (m.params as unknown[]) ?? []),
      };
    }
    const out: Record<string, unknown> = { id: this.value(m.id) };
    if ('error' in m && m.error !== null) out.error = this.value(m.error);
    if ('result' in m) {
      let result: unknown = m.result;
      if (m.error === null && request !== undefined) {
        switch (request.method) {
          case 'transact':
            result = Array.isArray(result)
              ? this.results(request.params.slice(1), result)
              : this.value(result);
            break;
          case 'monitor':
          case 'monitor_cond':
            result = this.updates(result);
            break;
          case 'monitor_cond_since':
            result = this.sinceResult(result);
            break;
          default:
            result = this.value(result);
        }
      } else {
        result = this.value(result);
      }
      out.result = result;
    }
    return out;
  }

  /** Remember the labels of the UUIDs in `v`. */
  private learn(v: unknown): void {
    const text = v === undefined ? '' : stringifyJson(v);
    for (const u of text.match(UUID_IN_STRING) ?? []) {
      const k = u.toLowerCase();
      if (!this.known.has(k)) {
        const label = this.base.value(k) as string;
        this.known.set(k, label.replace(/^[UV]/, ''));
      }
    }
  }
}

/** A transaction id as compared: `TXN` (all-zero or not; checked separately). */
function txn(id: unknown): unknown {
  return typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id) ? 'TXN' : id;
}
