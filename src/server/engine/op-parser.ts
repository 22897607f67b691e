/**
 * Member access for one operation object, with ovsdb-server's checks and
 * wording (OVS's `ovsdb_parser`): required and optional members, JSON type
 * checks, the first error wins, and members nobody read are reported when the
 * operation finishes.
 * @module
 */

import { type OpError, syntaxError } from './op-error.js';
import { isId } from './values.js';

/** JSON type flags a member may have. */
export const OP_NULL = 1 << 0;
/** `false`. */
export const OP_FALSE = 1 << 1;
/** `true`. */
export const OP_TRUE = 1 << 2;
/** An object. */
export const OP_OBJECT = 1 << 3;
/** An array. */
export const OP_ARRAY = 1 << 4;
/** An integer. */
export const OP_INTEGER = 1 << 5;
/** A real (a number with a fractional part). */
export const OP_REAL = 1 << 6;
/** A string. */
export const OP_STRING = 1 << 7;
/** `true` or `false`. */
export const OP_BOOLEAN = OP_FALSE | OP_TRUE;
/** A string that is an `<id>`. */
export const OP_ID = 1 << 8;
/** The member may be absent. */
export const OP_OPTIONAL = 1 << 9;

function jsonTypeFlag(v: unknown): number {
  if (v === null) return OP_NULL;
  if (v === false) return OP_FALSE;
  if (v === true) return OP_TRUE;
  if (Array.isArray(v)) return OP_ARRAY;
  switch (typeof v) {
    case 'object':
      return OP_OBJECT;
    case 'number':
      // OVS's JSON reader takes an integral value within int64 as an integer, anything else as a real.
      return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? OP_INTEGER : OP_REAL;
    case 'bigint':
      return OP_INTEGER;
    case 'string':
      return OP_STRING;
    default:
      return 0;
  }
}

/**
 * Orders the member names of an object the way ovsdb-server iterates them
 * (its hash-table order); used for the "not allowed here" report.
 */
export type MemberOrder = (names: readonly string[]) => readonly string[];

/** Reads the members of one operation object. */
export class OpParser {
  /** The operation object, or `undefined` when it is not an object. */
  readonly json: Record<string, unknown> | undefined;
  private readonly used = new Set<string>();
  private error: OpError | undefined;

  constructor(
    json: unknown,
    private readonly name: string,
    private readonly order: MemberOrder,
  ) {
    this.json =
      typeof json === 'object' && json !== null && !Array.isArray(json)
        ? (json as Record<string, unknown>)
        : undefined;
    if (this.json === undefined) this.raise('Object expected.');
  }

  /** Fetch member `name` if it has one of the `types`; otherwise record the error. */
  member(name: string, types: number): unknown {
    const obj = this.json;
    if (obj === undefined) return undefined;
    if (!Object.hasOwn(obj, name)) {
      if (!(types & OP_OPTIONAL)) this.raise(`Required '${name}' member is missing.`);
      return undefined;
    }
    const value = obj[name];
    if (types & jsonTypeFlag(value) || (types & OP_ID && isId(value))) {
      this.used.add(name);
      return value;
    }
    this.raise(`Type mismatch for member '${name}'.`);
    return undefined;
  }

  /** Record an error (only the first one is kept). */
  raise(message: string): void {
    if (this.error === undefined) {
      this.error = syntaxError(this.json, undefined, `Parsing ${this.name} failed: ${message}`);
    }
  }

  /** Throw the recorded error, if any. */
  check(): void {
    if (this.error !== undefined) throw this.error;
  }

  /** Report unread members, then return the recorded error, if any. */
  finish(): OpError | undefined {
    if (this.error === undefined && this.json !== undefined) {
      const names = Object.keys(this.json);
      const unused = names.length - this.used.size;
      if (unused > 0) {
        const first = this.order(names).find((n) => !this.used.has(n)) as string;
        if (unused > 1) {
          this.raise(
            `Member '${first}' and ${unused - 1} other member${unused > 2 ? 's' : ''} are present but not allowed here.`,
          );
        } else {
          this.raise(`Member '${first}' is present but not allowed here.`);
        }
      }
    }
    return this.error;
  }
}
