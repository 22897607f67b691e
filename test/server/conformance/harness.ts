/**
 * The conformance harness: the same requests, over the wire, to a real
 * ovsdb-server and to the in-memory server, each with a writer session and
 * an observer session holding monitors, and everything both send back
 * recorded and normalized for comparison.
 *
 * Per transaction, a server's record is:
 * - the normalized result array;
 * - per monitor (in a fixed order), the normalized notifications it caused.
 *   The writer's own monitors must receive them before the reply (they are
 *   taken up to the reply and nothing may follow it); the observer's are
 *   collected with an `echo` round trip after the reply;
 * - the messages that arrived on the writer after the reply (must be none).
 * @module
 */

import { readFileSync } from 'node:fs';
import { parseSchemaText } from '../../../src/ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../../src/ovsdb/schema/schema-types.js';
import { ZERO_UUID } from '../../../src/ovsdb/values/uuid.js';
import { type ServerKind, startTestServer, type TestServerHandle } from '../../helpers/servers.js';
import { dumpOps } from '../harness.js';
import { TranscriptNormalizer } from './normalize.js';
import { WireSession } from './wire-session.js';

/** Which session holds a monitor: the writer (`w`) or the observer (`o`). */
export type SessionName = 'w' | 'o';

/** A monitor the harness keeps on one session. */
export interface MonitorSpec {
  readonly session: SessionName;
  readonly id: string;
  readonly method: 'monitor' | 'monitor_cond' | 'monitor_cond_since';
  readonly requests: Record<string, unknown>;
}

/** One transaction's normalized outcome on one server. */
export interface StepRecord {
  readonly results: unknown;
  readonly notifications: Record<string, unknown[]>;
  readonly afterReply: unknown[];
}

/** The three monitors of the writer: every table, every column, versions 1 to 3. */
export function writerMonitors(schema: DatabaseSchema): MonitorSpec[] {
  const all = Object.fromEntries(Object.keys(schema.tables).map((t) => [t, {}]));
  return [
    { session: 'w', id: 'v1', method: 'monitor', requests: all },
    { session: 'w', id: 'v2', method: 'monitor_cond', requests: all },
    { session: 'w', id: 'v3', method: 'monitor_cond_since', requests: all },
  ];
}

/** Load and parse a schema file. */
export function loadSchemaFile(path: string): DatabaseSchema {
  return parseSchemaText(readFileSync(path, 'utf8'));
}

/** One server under comparison. */
export class Side {
  norm = new TranscriptNormalizer();
  /** Every transaction id seen in `update3` notifications, raw. */
  readonly txnIds: string[] = [];
  /** The same, per monitor. */
  readonly txnIdsByMonitor = new Map<string, string[]>();
  /** The last-txn-id of every `monitor_cond_since` reply, raw. */
  readonly sinceIds: string[] = [];

  private constructor(
    readonly kind: ServerKind,
    readonly handle: TestServerHandle,
    readonly w: WireSession,
    readonly o: WireSession,
    readonly schema: DatabaseSchema,
  ) {}

  static async start(kind: ServerKind, schemaPath: string, schema: DatabaseSchema): Promise<Side> {
    const handle = await startTestServer(kind, { schemaPath });
    const w = await WireSession.open(handle.unixRemote);
    const o = await WireSession.open(handle.unixRemote);
    return new Side(kind, handle, w, o, schema);
  }

  get db(): string {
    return this.schema.name;
  }

  session(name: SessionName): WireSession {
    return name === 'w' ? this.w : this.o;
  }

  /** Delete every row (no monitors may be open) and start new labels. */
  async reset(loose: boolean): Promise<void> {
    const ops = Object.keys(this.schema.tables).map((table) => ({
      op: 'delete',
      table,
      where: [],
    }));
    const reply = await this.w.request('transact', [this.db, ...ops]);
    const bad = (reply.result as unknown[] | undefined)?.find(
      (r) => r !== null && typeof r === 'object' && 'error' in r,
    );
    if (bad !== undefined || reply.error !== null) {
      throw new Error(`${this.kind}: reset failed: ${JSON.stringify(reply)}`);
    }
    this.w.take();
    this.norm = new TranscriptNormalizer(loose);
  }

  /** Open the monitors; returns each initial reply, normalized. */
  async openMonitors(monitors: readonly MonitorSpec[]): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const m of monitors) {
      const params: unknown[] = [this.db, m.id, m.requests];
      if (m.method === 'monitor_cond_since') params.push(ZERO_UUID);
      const s = this.session(m.session);
      const reply = await s.request(m.method, params);
      s.take();
      if (m.method === 'monitor_cond_since' && Array.isArray(reply.result)) {
        this.sinceIds.push(reply.result[1] as string);
      }
      out[m.id] = this.norm.message(reply, { method: m.method, params });
    }
    return out;
  }

  /** Cancel the monitors. */
  async closeMonitors(monitors: readonly MonitorSpec[]): Promise<void> {
    for (const m of monitors) {
      const s = this.session(m.session);
      const reply = await s.request('monitor_cancel', [m.id]);
      s.take();
      if (reply.error !== null) {
        throw new Error(`${this.kind}: monitor_cancel ${m.id}: ${JSON.stringify(reply)}`);
      }
    }
  }

  /** Run one transaction on the writer; record everything. */
  async step(ops: readonly unknown[], monitors: readonly MonitorSpec[]): Promise<StepRecord> {
    const params = [this.db, ...ops];
    const reply = await this.w.request('transact', params);
    const wMsgs = this.w.take();
    const at = wMsgs.indexOf(reply);
    const before = wMsgs.slice(0, at);
    const after = wMsgs.slice(at + 1);
    const oMsgs = await this.o.sync();
    const results = Array.isArray(reply.result)
      ? this.norm.results(ops, reply.result as unknown[])
      : this.norm.value(reply);
    const notifications: Record<string, unknown[]> = {};
    for (const m of monitors) {
      const msgs = (m.session === 'w' ? before : oMsgs).filter(
        (n) => Array.isArray(n.params) && (n.params as unknown[])[0] === m.id,
      );
      notifications[m.id] = msgs.map((n) => {
        const method = n.method as string;
        const p = n.params as unknown[];
        if (method === 'update3') {
          this.txnIds.push(p[1] as string);
          const list = this.txnIdsByMonitor.get(m.id) ?? [];
          list.push(p[1] as string);
          this.txnIdsByMonitor.set(m.id, list);
        }
        return { method, params: this.norm.notification(method, p) };
      });
    }
    const stray = [
      ...after,
      ...oMsgs.filter(
        (n) =>
          !monitors.some(
            (m) =>
              m.session === 'o' && Array.isArray(n.params) && (n.params as unknown[])[0] === m.id,
          ),
      ),
    ];
    return { results, notifications, afterReply: stray.map((m) => this.norm.value(m)) };
  }

  /** The normalized dump of every table. */
  async dump(): Promise<unknown> {
    const ops = dumpOps(this.schema);
    const reply = await this.w.request('transact', [this.db, ...ops]);
    this.w.take();
    const res = reply.result as { rows: unknown[] }[];
    const d: Record<string, unknown[]> = {};
    ops.forEach((op, i) => {
      d[(op as { table: string }).table] = res[i]?.rows ?? [];
    });
    return this.norm.dump(d);
  }

  async stop(): Promise<void> {
    this.w.close();
    this.o.close();
    await this.handle.stop();
  }
}

/** The real server and the in-memory server, side by side. */
export class ConformancePair {
  private open = false;

  private constructor(
    readonly real: Side,
    readonly memory: Side,
    readonly monitors: readonly MonitorSpec[],
  ) {}

  static async start(
    schemaPath: string,
    monitors: readonly MonitorSpec[],
  ): Promise<ConformancePair> {
    const schema = loadSchemaFile(schemaPath);
    const [real, memory] = await Promise.all([
      Side.start('ovsdb-server', schemaPath, schema),
      Side.start('memory', schemaPath, schema),
    ]);
    return new ConformancePair(real, memory, monitors);
  }

  private both<T>(f: (s: Side) => Promise<T>): Promise<{ real: T; memory: T }> {
    return Promise.all([f(this.real), f(this.memory)]).then(([real, memory]) => ({ real, memory }));
  }

  /** Empty both databases and open fresh monitors; returns the initial replies. */
  async startCase(loose = false): Promise<{ real: unknown; memory: unknown }> {
    if (this.open) await this.both((s) => s.closeMonitors(this.monitors));
    this.open = false;
    await this.both((s) => s.reset(loose));
    const initial = await this.both((s) => s.openMonitors(this.monitors));
    this.open = true;
    return initial;
  }

  /** One transaction on both. */
  step(ops: readonly unknown[]): Promise<{ real: StepRecord; memory: StepRecord }> {
    return this.both((s) => s.step(ops, this.monitors));
  }

  /** Both normalized dumps. */
  dumps(): Promise<{ real: unknown; memory: unknown }> {
    return this.both((s) => s.dump());
  }

  async stop(): Promise<void> {
    await Promise.all([this.real.stop(), this.memory.stop()]);
  }
}
