/**
 * Typed construction of OVN match expressions (the `match` of ACLs, router
 * policies, QoS rules): a small tree ({@link MatchExpr}) built with
 * {@link match}, written out by {@link formatMatch}, read back by
 * `parseMatch` (in `match-parser.ts`).
 *
 * ```ts
 * const m = match.and(
 *   match.inport('web "1"'),
 *   match.ip4Src(['10.0.0.0/24', '10.1.0.5']),
 *   match.not(match.eq('tcp.dst', 22)),
 *   match.eq('ip4.dst', match.addressSet('blocked_v4')),
 * );
 * formatMatch(m);
 * // inport == "web \"1\"" && ip4.src == {10.0.0.0/24, 10.1.0.5} && !(tcp.dst == 22) && ip4.dst == $blocked_v4
 * ```
 *
 * **Quoting.** Names and other strings are written as OVN string literals
 * (JSON escapes: `\"`, `\\`, `\n`, …) and every character outside printable
 * ASCII as `\uXXXX` (a surrogate pair above U+FFFF), so the output is
 * printable ASCII and no input can end the literal early or inject operators.
 * Strings OVN cannot represent (a NUL, an unpaired surrogate) are rejected.
 * Address set and port group names (`$name`, `@name`) cannot be quoted in
 * OVN; they must be identifiers (`[A-Za-z_][A-Za-z0-9_.]*`) and anything
 * else is rejected.
 *
 * **Precedence.** OVN rejects `&&` and `||` mixed without parentheses; the
 * writer parenthesizes every nested `&&`, `||` and negated comparison.
 * @module
 */

import { InvalidMatchError } from './errors.js';
import { parsePrefix } from './ip.js';
import { isMac, normalizeMac } from './mac.js';

/** A comparison operator. `<`, `<=`, `>`, `>=` take one value; `==` and `!=` also take a set. */
export type MatchOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** A value on the right of a comparison. */
export type MatchValue =
  /** A string literal, e.g. a port name: `"web-1"`. */
  | { readonly type: 'string'; readonly value: string }
  /** A numeric constant as OVN writes it: `22`, `0x1f`, `10.0.0.0/24`, `fd00::1`, `00:00:00:00:00:01`. */
  | { readonly type: 'constant'; readonly text: string }
  /** An address set reference: `$name`. */
  | { readonly type: 'addressSet'; readonly name: string }
  /** A port group reference: `@name`. */
  | { readonly type: 'portGroup'; readonly name: string };

/** A match expression tree. */
export type MatchExpr =
  | { readonly type: 'and'; readonly terms: readonly MatchExpr[] }
  | { readonly type: 'or'; readonly terms: readonly MatchExpr[] }
  | { readonly type: 'not'; readonly term: MatchExpr }
  /** The constants `1` (true) and `0` (false). */
  | { readonly type: 'bool'; readonly value: boolean }
  /** A 1-bit field or predicate on its own, e.g. `ip4`, `tcp`, `ct.new`. */
  | { readonly type: 'field'; readonly field: string }
  /** `field op value` or `field op {v1, v2, …}`. */
  | {
      readonly type: 'compare';
      readonly field: string;
      readonly op: MatchOperator;
      readonly value: MatchValue | readonly MatchValue[];
    };

/** What the builders accept as a value: a typed value, a number, or a string (read per field). */
export type MatchValueInput = MatchValue | number | string;

const IDENT = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_.]*(?:\[(?:0|[1-9]\d*)(?:\.\.(?:0|[1-9]\d*))?\])?$/;
const HEX = /^0[xX][0-9a-fA-F]+$/;
const DECIMAL = /^(?:0|[1-9]\d*)$/;

/** Fields whose string values are addresses (IPv4, IPv6, or Ethernet), not string literals. */
const ADDRESS_FIELD =
  /^(?:ip4\.(?:src|dst)|ip6\.(?:src|dst)|arp\.(?:spa|tpa|sha|tha)|nd\.(?:target|sll|tll)|eth\.(?:src|dst)|ct_nw_(?:src|dst)|ct_ip6_(?:src|dst)|inner\.(?:ip4|ip6|eth)\.(?:src|dst))$/;

function isOperator(op: unknown): op is MatchOperator {
  return op === '==' || op === '!=' || op === '<' || op === '<=' || op === '>' || op === '>=';
}

/**
 * Check that `s` can be written as an OVN string literal (no NUL, no
 * unpaired surrogate).
 * @throws InvalidMatchError when it cannot.
 */
function checkString(what: string, s: unknown): string {
  if (typeof s !== 'string') throw new InvalidMatchError(what, s, 'must be a string');
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) throw new InvalidMatchError(what, s, 'OVN strings cannot contain NUL');
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) {
        throw new InvalidMatchError(what, s, 'unpaired surrogate: not valid Unicode');
      }
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      throw new InvalidMatchError(what, s, 'unpaired surrogate: not valid Unicode');
    }
  }
  return s;
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  34: '\\"',
  92: '\\\\',
  8: '\\b',
  12: '\\f',
  10: '\\n',
  13: '\\r',
  9: '\\t',
};

/**
 * Write `s` as an OVN string literal: quoted, with JSON escapes, and every
 * character outside printable ASCII as `\uXXXX`. The result is printable
 * ASCII.
 *
 * ```ts
 * quoteMatchString('a "b" \\ c\n');   // "a \"b\" \\ c\n"  (as written: "a \"b\" \\\\ c\\n")
 * quoteMatchString('é');              // "\u00e9"
 * ```
 * @throws InvalidMatchError for a NUL or an unpaired surrogate.
 */
export function quoteMatchString(s: string): string {
  checkString('string', s);
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += s[i];
  }
  return `${out}"`;
}

function checkIdentifier(what: string, name: unknown): string {
  if (typeof name !== 'string' || !IDENT.test(name)) {
    throw new InvalidMatchError(
      what,
      name,
      'must be an identifier ([A-Za-z_][A-Za-z0-9_.]*): OVN cannot quote address set and port group names',
    );
  }
  return name;
}

function checkField(field: unknown): string {
  if (typeof field !== 'string' || !FIELD.test(field)) {
    throw new InvalidMatchError(
      'field',
      field,
      'must be a field name such as ip4.src or reg0[0..3]',
    );
  }
  return field;
}

function constantFromAddress(what: string, s: string): MatchValue {
  const slash = s.indexOf('/');
  const head = slash < 0 ? s : s.slice(0, slash);
  if (isMac(head)) {
    const mac = normalizeMac(head);
    if (slash < 0) return { type: 'constant', text: mac };
    const mask = s.slice(slash + 1);
    if (!isMac(mask))
      throw new InvalidMatchError(what, s, 'an Ethernet mask must be an Ethernet address');
    return { type: 'constant', text: `${mac}/${normalizeMac(mask)}` };
  }
  const p = parsePrefix(s);
  if (p === undefined) {
    throw new InvalidMatchError(what, s, 'not an IPv4/IPv6 address, prefix or Ethernet address');
  }
  return { type: 'constant', text: p.hasLength ? `${p.text}/${p.length}` : p.text };
}

/** Turn a builder input into a {@link MatchValue} for `field`. */
function toValue(field: string, v: MatchValueInput): MatchValue {
  if (typeof v === 'number') return match.int(v);
  if (typeof v === 'string') {
    return ADDRESS_FIELD.test(field) ? constantFromAddress(field, v) : match.str(v);
  }
  if (v === null || typeof v !== 'object')
    throw new InvalidMatchError('value', v, 'unsupported value');
  switch (v.type) {
    case 'string':
      return match.str(v.value);
    case 'constant':
      return match.const(v.text);
    case 'addressSet':
      return match.addressSet(v.name);
    case 'portGroup':
      return match.portGroup(v.name);
    default:
      throw new InvalidMatchError('value', v, 'unsupported value');
  }
}

function compare(
  field: string,
  op: MatchOperator,
  value: MatchValueInput | readonly MatchValueInput[],
): MatchExpr {
  const f = checkField(field);
  if (!isOperator(op))
    throw new InvalidMatchError('operator', op, 'must be ==, !=, <, <=, > or >=');
  if (Array.isArray(value)) {
    if (op !== '==' && op !== '!=') {
      throw new InvalidMatchError('operator', op, 'only == and != compare with a set');
    }
    if (value.length === 0)
      throw new InvalidMatchError('set', value, 'a set needs at least one value');
    return { type: 'compare', field: f, op, value: value.map((v) => toValue(f, v)) };
  }
  const single = toValue(f, value as MatchValueInput);
  if (op !== '==' && op !== '!=' && single.type !== 'constant') {
    throw new InvalidMatchError('operator', op, `${op} compares numbers only`);
  }
  return { type: 'compare', field: f, op, value: single };
}

function combine(type: 'and' | 'or', terms: readonly MatchExpr[]): MatchExpr {
  const flat: MatchExpr[] = [];
  for (const t of terms) {
    checkExpr(t);
    if (t.type === type) flat.push(...t.terms);
    else flat.push(t);
  }
  if (flat.length === 0) return { type: 'bool', value: type === 'and' };
  if (flat.length === 1) return flat[0]!;
  return { type, terms: flat };
}

function checkExpr(e: unknown): asserts e is MatchExpr {
  if (e === null || typeof e !== 'object' || typeof (e as { type?: unknown }).type !== 'string') {
    throw new InvalidMatchError('expression', e, 'not a match expression (build it with match.*)');
  }
}

/**
 * The match builders. Strings passed as values are string literals, except
 * for address fields (`ip4.src`, `ip6.dst`, `eth.src`, `arp.tpa`, …), where
 * they are addresses, prefixes or Ethernet addresses, checked and written as
 * constants. Numbers are integer constants.
 */
export const match = {
  /** `a && b && …` (nested `and`s are flattened; no terms is `1`). */
  and(...terms: MatchExpr[]): MatchExpr {
    return combine('and', terms);
  },
  /** `a || b || …` (nested `or`s are flattened; no terms is `0`). */
  or(...terms: MatchExpr[]): MatchExpr {
    return combine('or', terms);
  },
  /** `!(term)`. */
  not(term: MatchExpr): MatchExpr {
    checkExpr(term);
    return { type: 'not', term };
  },
  /** A field or predicate alone, e.g. `match.field('ip4')`. */
  field(name: string): MatchExpr {
    return { type: 'field', field: checkField(name) };
  },
  /** `1`. */
  always(): MatchExpr {
    return { type: 'bool', value: true };
  },
  /** `0`. */
  never(): MatchExpr {
    return { type: 'bool', value: false };
  },
  /** `field == value`, or `field == {v1, v2}` for a list. */
  eq(field: string, value: MatchValueInput | readonly MatchValueInput[]): MatchExpr {
    return compare(field, '==', value);
  },
  /** `field != value`, or `field != {v1, v2}` for a list. */
  ne(field: string, value: MatchValueInput | readonly MatchValueInput[]): MatchExpr {
    return compare(field, '!=', value);
  },
  /** `field op value`. */
  compare(
    field: string,
    op: MatchOperator,
    value: MatchValueInput | readonly MatchValueInput[],
  ): MatchExpr {
    return compare(field, op, value);
  },
  /** `inport == "name"` (or `inport == @pg` for a port group value, or a set for a list). */
  inport(port: string | MatchValue | readonly (string | MatchValue)[]): MatchExpr {
    return compare('inport', '==', port);
  },
  /** `outport == "name"` (or `outport == @pg`, or a set). */
  outport(port: string | MatchValue | readonly (string | MatchValue)[]): MatchExpr {
    return compare('outport', '==', port);
  },
  /** `ip4.src == addr` (an address, a prefix, a list of them, or `$set`). */
  ip4Src(addr: string | MatchValue | readonly (string | MatchValue)[]): MatchExpr {
    return compare('ip4.src', '==', addr);
  },
  /** `ip4.dst == addr`. */
  ip4Dst(addr: string | MatchValue | readonly (string | MatchValue)[]): MatchExpr {
    return compare('ip4.dst', '==', addr);
  },
  /** `ip6.src == addr`. */
  ip6Src(addr: string | MatchValue | readonly (string | MatchValue)[]): MatchExpr {
    return compare('ip6.src', '==', addr);
  },
  /** `ip6.dst == addr`. */
  ip6Dst(addr: string | MatchValue | readonly (string | MatchValue)[]): MatchExpr {
    return compare('ip6.dst', '==', addr);
  },
  /** A string literal value. */
  str(value: string): MatchValue {
    return { type: 'string', value: checkString('string', value) };
  },
  /** A non-negative integer constant (`22`), or hex text (`'0x1f'`). */
  int(value: number | string): MatchValue {
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new InvalidMatchError('integer', value, 'must be a non-negative safe integer');
      }
      return { type: 'constant', text: String(value) };
    }
    if (typeof value !== 'string' || !(HEX.test(value) || DECIMAL.test(value))) {
      throw new InvalidMatchError(
        'integer',
        value,
        'must be decimal (no leading zeros) or 0x… hex',
      );
    }
    return { type: 'constant', text: value };
  },
  /** An IPv4/IPv6 address or prefix, or an Ethernet address (optionally `/mask`), checked. */
  addr(value: string): MatchValue {
    if (typeof value !== 'string')
      throw new InvalidMatchError('address', value, 'must be a string');
    return constantFromAddress('address', value);
  },
  /** Any constant: an integer, address, prefix or Ethernet address (checked). */
  const(text: string): MatchValue {
    if (typeof text === 'string' && (HEX.test(text) || DECIMAL.test(text))) return match.int(text);
    return match.addr(text);
  },
  /** `$name`: an address set. */
  addressSet(name: string): MatchValue {
    return { type: 'addressSet', name: checkIdentifier('address set name', name) };
  },
  /** `@name`: a port group. */
  portGroup(name: string): MatchValue {
    return { type: 'portGroup', name: checkIdentifier('port group name', name) };
  },
} as const;

function formatValue(v: MatchValue): string {
  switch (v.type) {
    case 'string':
      return quoteMatchString(v.value);
    case 'constant':
      return v.text;
    case 'addressSet':
      return `$${checkIdentifier('address set name', v.name)}`;
    case 'portGroup':
      return `@${checkIdentifier('port group name', v.name)}`;
    default:
      throw new InvalidMatchError('value', v, 'unsupported value');
  }
}

function formatTerm(e: MatchExpr): string {
  const s = formatExpr(e);
  return e.type === 'and' || e.type === 'or' ? `(${s})` : s;
}

function formatExpr(e: MatchExpr): string {
  checkExpr(e);
  switch (e.type) {
    case 'and':
    case 'or': {
      if (!Array.isArray(e.terms) || e.terms.length < 2) {
        throw new InvalidMatchError(
          e.type,
          e,
          'needs at least two terms (use match.and / match.or)',
        );
      }
      return e.terms.map(formatTerm).join(e.type === 'and' ? ' && ' : ' || ');
    }
    case 'not': {
      checkExpr(e.term);
      const inner = formatExpr(e.term);
      return e.term.type === 'field' || e.term.type === 'bool' ? `!${inner}` : `!(${inner})`;
    }
    case 'bool':
      return e.value ? '1' : '0';
    case 'field':
      return checkField(e.field);
    case 'compare': {
      const field = checkField(e.field);
      if (!isOperator(e.op)) throw new InvalidMatchError('operator', e.op, 'unknown operator');
      const value = Array.isArray(e.value)
        ? `{${(e.value as readonly MatchValue[]).map(formatValue).join(', ')}}`
        : formatValue(e.value as MatchValue);
      return `${field} ${e.op} ${value}`;
    }
    default:
      throw new InvalidMatchError('expression', e, 'unknown expression type');
  }
}

/**
 * Write a match expression as OVN text.
 *
 * ```ts
 * formatMatch(match.and(match.outport('p1'), match.or(match.field('tcp'), match.field('udp'))));
 * // outport == "p1" && (tcp || udp)
 * ```
 * @throws InvalidMatchError for a malformed tree.
 */
export function formatMatch(e: MatchExpr): string {
  return formatExpr(e);
}

/** A match given as OVN text (used as is) or as a tree (written with {@link formatMatch}). */
export type MatchInput = string | MatchExpr;

/** The text of a {@link MatchInput}. */
export function matchText(m: MatchInput, field = 'match'): string {
  if (typeof m === 'string') {
    if (m.includes('\u0000'))
      throw new InvalidMatchError(field, m, 'OVN matches cannot contain NUL');
    return m;
  }
  return formatMatch(m);
}
