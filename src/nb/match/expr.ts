/**
 * Typed construction of OVN match expressions (the `match` of ACLs, router
 * policies, QoS rules): a small tree ({@link MatchExpr}) built with
 * {@link match}, written out by {@link formatMatch}, read back by
 * `parseMatch` (in `parser.ts`).
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
 *
 * **Fields.** Every field is checked against OVN's symbol table
 * (`MATCH_FIELDS`, `fields.ts`) with OVN's own rules
 * (`check.ts`): the field exists, values have its kind and fit its
 * width, bit selections are in range, operators suit it. With a literal
 * field the mistakes are compile errors:
 *
 * ```ts
 * match.eq('tcp.dst', '443');      // type error: a string for an integer field
 * match.eq('tcp.dport', 443);      // type error: unknown OVN match field: tcp.dport
 * match.eq('ip4.src', 'fd00::1');  // type error: not an IPv4 address or prefix
 * match.eq(name, 65536);           // (name: string = 'tcp.dst') InvalidMatchError:
 * // match tcp.dst: 65536 (17 bits) does not fit the 16-bit ordinal field tcp.dst (value: "65536")
 * ```
 * @module
 */

import { InvalidMatchError } from '../errors.js';
import { parsePrefix } from '../ip.js';
import { isMac, normalizeMac } from '../mac.js';
import {
  checkAlone,
  checkComparison,
  checkMatch,
  type MatchCheckOptions,
  type ResolvedField,
  resolveField,
} from './check.js';
import type { MATCH_FIELDS, MatchFieldName } from './fields.js';
import type {
  MatchAddressSetRef,
  MatchConstant,
  MatchExpr,
  MatchOperator,
  MatchPortGroupRef,
  MatchStringValue,
  MatchValue,
} from './types.js';

export type {
  MatchAddressSetRef,
  MatchConstant,
  MatchExpr,
  MatchOperator,
  MatchPortGroupRef,
  MatchStringValue,
  MatchValue,
} from './types.js';

/** What the builders accept as a value: a typed value, a number, or a string (read per field). */
export type MatchValueInput = MatchValue | number | string;

/** Fields whose bits may be selected (`reg0[0..3]`): every field that is neither a string nor nominal. */
type SelectableField = {
  [K in MatchFieldName]: (typeof MATCH_FIELDS)[K] extends
    | { readonly kind: 'string' }
    | { readonly level: 'nominal' }
    ? never
    : K;
}[MatchFieldName];

/** A field reference OVN knows: a symbol of {@link MATCH_FIELDS}, or bits of a non-nominal one. */
export type MatchFieldRef =
  | MatchFieldName
  | `${SelectableField}[${number}]`
  | `${SelectableField}[${number}..${number}]`;

/** The kind of values a field reference takes (selected bits are integers). */
type KindOf<F extends string> = F extends MatchFieldName
  ? (typeof MATCH_FIELDS)[F]['kind']
  : 'subfield';

/**
 * A field argument: a literal must be a {@link MatchFieldRef} (else the
 * parameter's type is an error message); a `string` is checked at run time.
 */
export type MatchFieldArg<F extends string> = string extends F
  ? F
  : F extends MatchFieldRef
    ? F
    : F extends `${infer B}[${string}`
      ? B extends MatchFieldName
        ? `cannot select bits of ${B}: a string or nominal field`
        : `unknown OVN match field: ${B}`
      : `unknown OVN match field: ${F}`;

type OneValue<K> = K extends 'string'
  ? string | MatchStringValue | MatchPortGroupRef
  : K extends 'ipv4' | 'ipv6' | 'mac'
    ? string | number | MatchConstant | MatchAddressSetRef
    : number | MatchConstant | MatchAddressSetRef;

/**
 * The values a field takes: strings and `@port_groups` for string fields;
 * address strings, numbers, constants and `$address_sets` for address
 * fields; numbers, constants and `$address_sets` for the others.
 */
export type MatchValueArg<F extends string> = string extends F
  ? MatchValueInput | readonly MatchValueInput[]
  : OneValue<KindOf<F>> | readonly OneValue<KindOf<F>>[];

type CheckOne<K, V> = K extends 'ipv4'
  ? V extends `${string}:${string}`
    ? `not an IPv4 address or prefix: ${V}`
    : V
  : V;

/** A value argument, with literal IPv6 or Ethernet strings given to an IPv4 field turned into an error message. */
export type MatchValueCheck<F extends string, V> = string extends F
  ? V
  : V extends readonly unknown[]
    ? { readonly [I in keyof V]: CheckOne<KindOf<F>, V[I]> }
    : CheckOne<KindOf<F>, V>;

/** The operators a field takes: every one on ordinal fields and selected bits, `==` and `!=` on the rest. */
export type MatchOperatorArg<F extends string> = string extends F
  ? MatchOperator
  : F extends MatchFieldName
    ? (typeof MATCH_FIELDS)[F]['level'] extends 'ordinal'
      ? MatchOperator
      : '==' | '!='
    : MatchOperator;

/** A field standing alone: any field but a string one. */
export type MatchAloneArg<F extends string> = string extends F
  ? F
  : F extends MatchFieldRef
    ? KindOf<F> extends 'string'
      ? `string field ${F} cannot stand alone: compare it`
      : F
    : MatchFieldArg<F>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_.]*(?:\[(?:0|[1-9]\d*)(?:\.\.(?:0|[1-9]\d*))?\])?$/;
const HEX = /^0[xX][0-9a-fA-F]+$/;
const DECIMAL = /^(?:0|[1-9]\d*)$/;

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

function constantFromAddress(what: string, s: string): MatchConstant {
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

/** Turn a builder input into a {@link MatchValue} for field `f`: strings are addresses for address fields, string literals otherwise. */
function toValue(f: ResolvedField, v: MatchValueInput): MatchValue {
  if (typeof v === 'number') return match.int(v);
  if (typeof v === 'string') {
    const address = f.nBits === f.spec.width && ADDRESS_KINDS.has(f.spec.kind);
    return address ? constantFromAddress(f.name, v) : match.str(v);
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

const ADDRESS_KINDS: ReadonlySet<string> = new Set(['ipv4', 'ipv6', 'mac']);

function compare(
  field: string,
  op: MatchOperator,
  value: MatchValueInput | readonly MatchValueInput[],
): MatchExpr {
  const f = resolveField(field);
  if (!isOperator(op))
    throw new InvalidMatchError('operator', op, 'must be ==, !=, <, <=, > or >=');
  if (Array.isArray(value)) {
    if (op !== '==' && op !== '!=') {
      throw new InvalidMatchError('operator', op, 'only == and != compare with a set');
    }
    if (value.length === 0)
      throw new InvalidMatchError('set', value, 'a set needs at least one value');
    const values = value.map((v) => toValue(f, v));
    checkComparison(f, op, values, true);
    return { type: 'compare', field, op, value: values };
  }
  const single = toValue(f, value as MatchValueInput);
  checkComparison(f, op, [single], false);
  if (op !== '==' && op !== '!=' && single.type !== 'constant') {
    throw new InvalidMatchError('operator', op, `${op} compares numbers only`);
  }
  return { type: 'compare', field, op, value: single };
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
 * The match builders. Fields are checked against OVN's symbol table
 * ({@link MATCH_FIELDS}): at compile time when the field is a literal
 * (an unknown field, a string for an integer field, an IPv6 address for an
 * IPv4 field, `<` on a nominal field are type errors), at run time always
 * (`InvalidMatchError` naming the field, the value and why). Strings passed
 * as values are string literals for string fields (`inport`, `outport`),
 * addresses, prefixes or Ethernet addresses for address fields (`ip4.src`,
 * `ip6.dst`, `eth.src`, `arp.tpa`, …), checked and written as constants,
 * and rejected elsewhere. Numbers are integer constants, checked against
 * the field's width.
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
  /**
   * A field or predicate alone, e.g. `match.field('ip4')`, `match.field('ct.new')`.
   * A multi-bit field may stand alone only under `!` (`!reg0` is `reg0 == 0`).
   */
  field<const F extends string>(name: MatchAloneArg<F>): MatchExpr {
    const f = resolveField(name);
    checkAlone(f, undefined);
    return { type: 'field', field: name };
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
  eq<const F extends string, const V extends MatchValueArg<F>>(
    field: MatchFieldArg<F>,
    value: MatchValueCheck<F, V>,
  ): MatchExpr {
    return compare(field, '==', value as MatchValueInput | readonly MatchValueInput[]);
  },
  /**
   * `field != value`, or `field != {v1, v2}` for a list. On a nominal field
   * (`inport`, `ip.proto`, …) OVN takes `!=` only under `!`.
   */
  ne<const F extends string, const V extends MatchValueArg<F>>(
    field: MatchFieldArg<F>,
    value: MatchValueCheck<F, V>,
  ): MatchExpr {
    return compare(field, '!=', value as MatchValueInput | readonly MatchValueInput[]);
  },
  /** `field op value`. `<`, `<=`, `>`, `>=` take an ordinal field and one unmasked constant. */
  compare<const F extends string, const V extends MatchValueArg<F>>(
    field: MatchFieldArg<F>,
    op: MatchOperatorArg<F>,
    value: MatchValueCheck<F, V>,
  ): MatchExpr {
    return compare(field, op, value as MatchValueInput | readonly MatchValueInput[]);
  },
  /** `inport == "name"` (or `inport == @pg` for a port group value, or a set for a list). */
  inport(port: MatchValueArg<'inport'>): MatchExpr {
    return compare('inport', '==', port);
  },
  /** `outport == "name"` (or `outport == @pg`, or a set). */
  outport(port: MatchValueArg<'outport'>): MatchExpr {
    return compare('outport', '==', port);
  },
  /** `ip4.src == addr` (an address, a prefix, a list of them, or `$set`). */
  ip4Src<const V extends MatchValueArg<'ip4.src'>>(addr: MatchValueCheck<'ip4.src', V>): MatchExpr {
    return compare('ip4.src', '==', addr as MatchValueInput | readonly MatchValueInput[]);
  },
  /** `ip4.dst == addr`. */
  ip4Dst<const V extends MatchValueArg<'ip4.dst'>>(addr: MatchValueCheck<'ip4.dst', V>): MatchExpr {
    return compare('ip4.dst', '==', addr as MatchValueInput | readonly MatchValueInput[]);
  },
  /** `ip6.src == addr`. */
  ip6Src(addr: MatchValueArg<'ip6.src'>): MatchExpr {
    return compare('ip6.src', '==', addr);
  },
  /** `ip6.dst == addr`. */
  ip6Dst(addr: MatchValueArg<'ip6.dst'>): MatchExpr {
    return compare('ip6.dst', '==', addr);
  },
  /** A string literal value. */
  str(value: string): MatchStringValue {
    return { type: 'string', value: checkString('string', value) };
  },
  /** A non-negative integer constant (`22`), or hex text (`'0x1f'`). */
  int(value: number | string): MatchConstant {
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
  addr(value: string): MatchConstant {
    if (typeof value !== 'string')
      throw new InvalidMatchError('address', value, 'must be a string');
    return constantFromAddress('address', value);
  },
  /** Any constant: an integer, address, prefix or Ethernet address (checked). */
  const(text: string): MatchConstant {
    if (typeof text === 'string' && (HEX.test(text) || DECIMAL.test(text))) return match.int(text);
    return match.addr(text);
  },
  /** `$name`: an address set. */
  addressSet(name: string): MatchAddressSetRef {
    return { type: 'addressSet', name: checkIdentifier('address set name', name) };
  },
  /** `@name`: a port group. */
  portGroup(name: string): MatchPortGroupRef {
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
      if (Array.isArray(e.value) && e.value.length === 0) {
        throw new InvalidMatchError('set', e.value, 'a set needs at least one value');
      }
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
 * Write a match expression as OVN text, after checking it against OVN's
 * symbol table and parser rules (`checkMatch`): the rules that depend on
 * enclosing `!` (`!ip4`, `inport != "a"`, `reg0` alone) are checked here,
 * the others already by the builders.
 *
 * ```ts
 * formatMatch(match.and(match.outport('p1'), match.or(match.field('tcp'), match.field('udp'))));
 * // outport == "p1" && (tcp || udp)
 * formatMatch(match.field('ct_mark.obs_stage'), { ovnRelease: '23.03' });
 * // InvalidMatchError: OVN 23.03 has no field ct_mark.obs_stage
 * ```
 * @throws InvalidMatchError for a malformed tree or one OVN would reject.
 */
export function formatMatch(e: MatchExpr, options: MatchCheckOptions = {}): string {
  const text = formatExpr(e);
  checkMatch(e, options);
  return text;
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
