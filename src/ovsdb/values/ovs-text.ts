/**
 * The text forms of values that Open vSwitch writes, for the places where
 * ovnkit must write them byte for byte as ovsdb-server does (error details,
 * the `syntax` member of an error, schema text):
 *
 * - strings quoted and escaped as OVS's JSON library does ({@link quoteOvsString});
 * - JSON as `json_to_string(json, JSSF_SORT)` writes it ({@link ovsJsonText});
 * - reals as C's `%.15g` ({@link formatG15}), and rounded to 15 significant
 *   digits as ovsdb-server sends them ({@link roundReal});
 * - atoms and datums as `ovsdb_atom_to_string` and `ovsdb_datum_to_string`
 *   write them ({@link atomToString}, {@link datumToString}).
 * @module
 */

import type { Atom, AtomicType, BaseType } from '../schema/schema-types.js';
import { compareStrings } from './order.js';
import type { Datum, DatumType } from './sorted-datum.js';

/**
 * Format `x` as C's `printf("%.15g", x)` does: 15 significant digits, trailing
 * zeros removed, exponent form when the exponent is below -4 or at least 15.
 */
export function formatG15(x: number): string {
  if (Number.isNaN(x)) return x < 0 ? '-nan' : 'nan';
  if (!Number.isFinite(x)) return x < 0 ? '-inf' : 'inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const exp = Number(x.toExponential(14).split('e')[1]);
  if (exp < -4 || exp >= 15) {
    const [mant = '', e = '0'] = x.toExponential(14).split('e');
    const m = mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant;
    const en = Number(e);
    const sign = en < 0 ? '-' : '+';
    const digits = String(Math.abs(en)).padStart(2, '0');
    return `${m}e${sign}${digits}`;
  }
  const fixed = x.toFixed(Math.max(0, 14 - exp));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** `x` as ovsdb-server sends it: rounded to 15 significant digits. */
export function roundReal(x: number): number {
  return Number(formatG15(x));
}

/**
 * `s` as a JSON string the way OVS's JSON library writes it: `"` and `\`
 * escaped, control characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00XX`,
 * everything else as is.
 */
export function quoteOvsString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20) out += s[i];
    else if (c === 0x08) out += '\\b';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0d) out += '\\r';
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/**
 * Serialize `json` as OVS's `json_to_string(json, JSSF_SORT)` does: compact,
 * object members sorted by name (as `strcmp` sorts them: UTF-8 bytes),
 * integers (bigints, and integral numbers within int64) in decimal and reals
 * as `%.15g`. OVS's JSON reader takes `1.0` for the integer 1, and JS cannot
 * tell them apart once parsed, so integral numbers print as integers.
 *
 * Iterative (an explicit stack), so a value of any depth is safe: this
 * writes request ids, monitor ids and error details that came from a peer.
 */
export function ovsJsonText(json: unknown): string {
  if (typeof json !== 'object' || json === null) return ovsScalarText(json);
  const out: string[] = [];
  // Each frame: a container, its keys (objects; undefined for arrays), the next index.
  const stack: { node: unknown; keys: string[] | undefined; next: number }[] = [];
  const open = (v: object): void => {
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ node: v, keys: undefined, next: 0 });
    } else {
      out.push('{');
      stack.push({ node: v, keys: Object.keys(v).sort(compareStrings), next: 0 });
    }
  };
  open(json);
  for (;;) {
    const top = stack[stack.length - 1];
    if (top === undefined) break;
    const length = top.keys === undefined ? (top.node as unknown[]).length : top.keys.length;
    if (top.next >= length) {
      out.push(top.keys === undefined ? ']' : '}');
      stack.pop();
      continue;
    }
    const index = top.next++;
    if (index > 0) out.push(',');
    let v: unknown;
    if (top.keys === undefined) {
      v = (top.node as unknown[])[index];
    } else {
      const k = top.keys[index] as string;
      out.push(quoteOvsString(k), ':');
      v = (top.node as Record<string, unknown>)[k];
    }
    if (typeof v === 'object' && v !== null) open(v);
    else out.push(ovsScalarText(v));
  }
  return out.join('');
}

/** {@link ovsJsonText} of a value that is not an array or object. */
function ovsScalarText(json: unknown): string {
  switch (typeof json) {
    case 'boolean':
      return json ? 'true' : 'false';
    case 'number':
      // An integral number beyond int64 is a real to OVS's JSON reader, printed as one.
      if (Number.isSafeInteger(json)) return String(json);
      // Beyond 2^53 String() rounds the digits: an integral number below 2^63 is exact as a bigint.
      return Number.isInteger(json) && Math.abs(json) < 2 ** 63
        ? BigInt(json).toString()
        : formatG15(json);
    case 'bigint':
      return String(json);
    case 'string':
      return quoteOvsString(json);
    default:
      return 'null';
  }
}

function isAsciiAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** Whether `ovsdb_atom_to_string` quotes `s`: unless it is an identifier-like word other than `true`/`false`. */
function stringNeedsQuotes(s: string): boolean {
  if (s.length === 0) return true;
  const c0 = s.charCodeAt(0);
  if (!isAsciiAlpha(c0) && c0 !== 95) return true;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAsciiAlpha(c) && !(c >= 48 && c <= 57) && c !== 95 && c !== 45 && c !== 46) return true;
  }
  return s === 'true' || s === 'false';
}

/** An atom as `ovsdb_atom_to_string` writes it. */
export function atomToString(atom: Atom, type: AtomicType): string {
  switch (type) {
    case 'integer':
      return String(atom);
    case 'real':
      return formatG15(atom as number);
    case 'boolean':
      return atom ? 'true' : 'false';
    case 'string':
      return stringNeedsQuotes(atom as string) ? quoteOvsString(atom as string) : (atom as string);
    case 'uuid':
      return atom as string;
  }
}

/** A datum as `ovsdb_datum_to_string` writes it, e.g. `[1, 2]`, `{a=b}` or `x`. */
export function datumToString(d: Datum, type: DatumType): string {
  const isMap = type.value !== undefined;
  const bracket = type.max > 1 || d.keys.length === 0;
  const parts = d.keys.map((k, i) => {
    const ks = atomToString(k, type.key.type);
    if (!isMap) return ks;
    return `${ks}=${atomToString((d.values as readonly Atom[])[i] as Atom, (type.value as BaseType).type)}`;
  });
  const body = parts.join(', ');
  if (!bracket) return body;
  return isMap ? `{${body}}` : `[${body}]`;
}
