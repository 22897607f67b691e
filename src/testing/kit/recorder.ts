/**
 * Recording the transactions clients send to a test database, as the
 * server receives them: every `transact` request in order, its operations
 * as sent, and how it ended (committed, failed, answered with an error, or
 * left without a reply). And the checks a test makes of them: sent exactly
 * these, sent nothing, sent at most N.
 * @module
 */

import type { Operation } from '../../ovsdb/wire/wire.js';
import type { CompareResult } from './compare.js';
import { registeredName } from './names.js';
import type { RecordedTransaction } from './session.js';

/** `T` with every object member optional, at any depth (arrays compare whole). */
type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { readonly [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * A pattern of one operation: its `op`, and any of its members (a `row`
 * with some of its columns, a `where`, …) in wire form. Objects match when
 * every member given matches; arrays and values must be equal.
 * @typeParam Tables - the table names a pattern may name.
 */
export type OpPattern<Tables extends string = string> = Operation extends infer O
  ? O extends { readonly op: infer K }
    ? { readonly op: K } & ('table' extends keyof O ? { readonly table?: Tables } : unknown) &
        DeepPartial<Omit<O, 'op' | 'table'>>
    : never
  : never;

/**
 * The transactions a test database's clients send (those of one connection
 * label, when given), from {@link TestDatabase.record} on. The same object
 * is updated as replies arrive.
 */
export class TransactionRecorder {
  private readonly list: RecordedTransaction[] = [];
  private on = true;

  /** @internal Made by `TestDatabase.record`. */
  constructor(
    private readonly session: string | undefined,
    private readonly detach: () => void,
  ) {}

  /** @internal A transaction was sent. */
  add(t: RecordedTransaction): void {
    if (this.on && (this.session === undefined || t.session === this.session)) this.list.push(t);
  }

  /** The transactions recorded, in the order the server received them. */
  get transactions(): readonly RecordedTransaction[] {
    return this.list;
  }

  /** Forget what was recorded so far (e.g. after a test's setup). */
  clear(): void {
    this.list.length = 0;
  }

  /** Stop recording (what was recorded stays). */
  stop(): void {
    this.on = false;
    this.detach();
  }
}

/** A wire value written for people: named UUIDs as `@name`, seeded rows by their names. */
function wireText(v: unknown): string {
  if (Array.isArray(v)) {
    if (v.length === 2 && v[0] === 'uuid' && typeof v[1] === 'string') {
      return registeredName(v[1]) ?? v[1];
    }
    if (v.length === 2 && v[0] === 'named-uuid' && typeof v[1] === 'string') return `@${v[1]}`;
    if (v.length === 2 && v[0] === 'set' && Array.isArray(v[1])) {
      return `[${(v[1] as unknown[]).map(wireText).join(', ')}]`;
    }
    if (v.length === 2 && v[0] === 'map' && Array.isArray(v[1])) {
      return `{${(v[1] as unknown[][]).map((p) => `${wireText(p[0])}: ${wireText(p[1])}`).join(', ')}}`;
    }
    return `[${v.map(wireText).join(', ')}]`;
  }
  if (typeof v === 'object' && v !== null) {
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${wireText(x)}`)
      .join(', ')}}`;
  }
  if (typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? String(v);
}

function conditionsText(where: unknown): string {
  if (!Array.isArray(where) || where.length === 0) return '';
  return ` where ${where
    .map((c) =>
      Array.isArray(c) && c.length === 3 ? `${c[0]} ${c[1]} ${wireText(c[2])}` : wireText(c),
    )
    .join(' and ')}`;
}

/** One operation in a line: `insert Logical_Switch {name: "sw0"}`, `mutate … where … ports insert [p1]`. */
export function describeOperation(op: unknown): string {
  const o = op as Record<string, unknown>;
  const table = typeof o['table'] === 'string' ? o['table'] : '';
  switch (o['op']) {
    case 'insert':
      return `insert ${table} ${wireText(o['row'] ?? {})}${o['uuid-name'] === undefined ? '' : ` as @${String(o['uuid-name'])}`}`;
    case 'update':
      return `update ${table}${conditionsText(o['where'])} set ${wireText(o['row'] ?? {})}`;
    case 'mutate':
      return `mutate ${table}${conditionsText(o['where'])}: ${(Array.isArray(o['mutations'])
        ? (o['mutations'] as unknown[][])
        : []
      )
        .map((m) => `${m[0]} ${m[1]} ${wireText(m[2])}`)
        .join(', ')}`;
    case 'delete':
      return `delete ${table}${conditionsText(o['where'])}`;
    case 'select':
      return `select ${table}${conditionsText(o['where'])}`;
    case 'wait':
      return `wait ${table}${conditionsText(o['where'])} until ${String(o['until'])} ${wireText(o['rows'])}`;
    default:
      return wireText(op);
  }
}

function outcomeText(t: RecordedTransaction): string {
  if (t.outcome === 'failed') {
    const e = t.results?.find((r) => typeof r === 'object' && r !== null && 'error' in r) as
      | { error?: unknown }
      | undefined;
    return `failed (${String(e?.error)})`;
  }
  if (t.outcome === 'error') return `error (${wireText(t.error)})`;
  return t.outcome;
}

/** The recorded transactions, one per line with their operations below. */
export function describeTransactions(list: readonly RecordedTransaction[]): string {
  if (list.length === 0) return '  (none)';
  return list
    .map(
      (t, i) =>
        `  #${i + 1} ${t.session} ${outcomeText(t)}${t.ops.map((op) => `\n      ${describeOperation(op)}`).join('')}`,
    )
    .join('\n');
}

/** Whether `actual` matches `pattern` (objects: the members given; anything else: equal). */
function matches(actual: unknown, pattern: unknown): boolean {
  if (pattern === actual) return true;
  if (
    (typeof pattern === 'number' || typeof pattern === 'bigint') &&
    (typeof actual === 'number' || typeof actual === 'bigint')
  ) {
    // biome-ignore lint/suspicious/noDoubleEquals: a number and a bigint compare by value
    return pattern == actual;
  }
  if (Array.isArray(pattern)) {
    return (
      Array.isArray(actual) &&
      actual.length === pattern.length &&
      pattern.every((p, i) => matches(actual[i], p))
    );
  }
  if (typeof pattern === 'object' && pattern !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(pattern).every(
      ([k, p]) =>
        p === undefined ||
        (Object.hasOwn(actual, k) && matches((actual as Record<string, unknown>)[k], p)),
    );
  }
  return false;
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/** Whether the recorder holds exactly transactions matching `expected`, in order. */
export function checkSent(
  recorder: TransactionRecorder,
  expected: readonly (readonly OpPattern[])[],
): CompareResult {
  const list = recorder.transactions;
  const lines: string[] = [];
  if (list.length !== expected.length) {
    lines.push(
      `expected ${plural(expected.length, 'transaction')} to have been sent, and ${list.length} ${list.length === 1 ? 'was' : 'were'}:`,
    );
  }
  for (let i = 0; i < Math.min(list.length, expected.length); i++) {
    const ops = (list[i] as RecordedTransaction).ops;
    const want = expected[i] as readonly OpPattern[];
    if (ops.length !== want.length) {
      lines.push(
        `transaction #${i + 1}: expected ${plural(want.length, 'operation')}, sent ${ops.length}`,
      );
      continue;
    }
    want.forEach((p, j) => {
      if (!matches(ops[j], p)) {
        lines.push(
          `transaction #${i + 1}, operation ${j + 1}: expected ${wireText(p)}\n${' '.repeat(`transaction #${i + 1}, operation ${j + 1}: `.length)}    sent ${describeOperation(ops[j])}`,
        );
      }
    });
  }
  if (lines.length === 0) {
    return {
      pass: true,
      message: `expected other transactions than the ${plural(list.length, 'transaction')} sent:\n${describeTransactions(list)}`,
    };
  }
  if (list.length === expected.length)
    lines.unshift('the transactions sent differ from those expected:');
  return { pass: false, message: `${lines.join('\n')}\n\nsent:\n${describeTransactions(list)}` };
}

/** Whether the recorder holds at most `max` transactions. */
export function checkSentAtMost(recorder: TransactionRecorder, max: number): CompareResult {
  const list = recorder.transactions;
  const pass = list.length <= max;
  return {
    pass,
    message: pass
      ? `expected more than ${plural(max, 'transaction')} to have been sent, and ${list.length} ${list.length === 1 ? 'was' : 'were'}:\n${describeTransactions(list)}`
      : `expected at most ${plural(max, 'transaction')} to have been sent, and ${list.length} ${list.length === 1 ? 'was' : 'were'}:\n${describeTransactions(list)}`,
  };
}

/** Whether the recorder holds no transaction. */
export function checkSentNothing(recorder: TransactionRecorder): CompareResult {
  const r = checkSentAtMost(recorder, 0);
  return {
    pass: r.pass,
    message: r.pass
      ? 'expected a transaction to have been sent, and none was'
      : `expected no transaction to have been sent, and ${plural(recorder.transactions.length, 'transaction')} ${recorder.transactions.length === 1 ? 'was' : 'were'}:\n${describeTransactions(recorder.transactions)}`,
  };
}
