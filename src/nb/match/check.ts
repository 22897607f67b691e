/**
 * Checks of match expressions against OVN's symbol table
 * ({@link MATCH_FIELDS}), the rules of OVN's expression parser
 * (`lib/expr.c`: `parse_field`, `type_check`, `make_cmp`):
 *
 * - the field exists (in a given OVN release, when one is named), and a bit
 *   selection `[lo..hi]` is within its width, on an integer field, and on
 *   an ordinal one (a nominal field only as a whole);
 * - strings (and `@port_group`) compare with string fields only, integer
 *   constants (and `$address_set`) with integer fields only;
 * - no constant is wider than the field: `tcp.dst == 65536` (17 bits),
 *   `ip.dscp == 64` (7 bits), an IPv6 address (128 bits) against `ip4.src`,
 *   an Ethernet address (48 bits) against `tcp.dst`. A masked constant's
 *   width is its mask's. As in OVN, the width compared is the symbol's, also
 *   when bits are selected (`reg0[0..3] == 0xff` is accepted; OVN keeps the
 *   low bits);
 * - `<`, `<=`, `>`, `>=` only on ordinal fields, never with a set or a
 *   masked constant;
 * - taking enclosing `!` into account: a nominal field only tested for
 *   equality (`inport == "a"` or `!(inport != "a")`, never
 *   `inport != "a"`), a nominal predicate only positively (`ip4`, never
 *   `!ip4`), and a multi-bit field alone only under `!` (`!reg0` means
 *   `reg0 == 0`; `reg0` alone is an error).
 *
 * Address set contents are not known here: `$name` counts as an integer
 * constant of any width.
 * @module
 */

import { InvalidMatchError } from '../errors.js';
import { parseIp } from '../ip.js';
import {
  fieldInRelease,
  isOvnRelease,
  type MatchFieldSpec,
  matchField,
  matchFieldNames,
} from './fields.js';
import type { MatchExpr, MatchOperator, MatchValue } from './types.js';

/** Options of the checks. */
export interface MatchCheckOptions {
  /**
   * Check against the symbols of this OVN release (`YY.MM`, e.g. `'23.03'`)
   * rather than those of any release the catalogue knows.
   */
  readonly ovnRelease?: string | undefined;
}

/** A field reference resolved against the catalogue. */
export interface ResolvedField {
  /** The symbol's name, without the bit selection. */
  readonly name: string;
  readonly spec: MatchFieldSpec;
  /** The number of bits referenced: the selection's, or the symbol's width. */
  readonly nBits: number;
}

const FIELD_REF = /^([A-Za-z_][A-Za-z0-9_.]*)(?:\[(0|[1-9]\d*)(?:\.\.(0|[1-9]\d*))?\])?$/;

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        prev[j]! + 1,
        cur[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = cur;
  }
  return prev[b.length]!;
}

function suggestion(name: string): string {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of matchFieldNames()) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : ` (did you mean ${best}?)`;
}

function describeField(f: ResolvedField): string {
  const { spec, name } = f;
  if (spec.kind === 'string') return `string field ${name}`;
  if (spec.kind === 'predicate') return `1-bit ${spec.level} predicate ${name}`;
  return `${spec.width}-bit ${spec.level} field ${name}`;
}

/**
 * Resolve `ref` (`name`, `name[bit]` or `name[lo..hi]`) against the
 * catalogue.
 * @throws InvalidMatchError for an unknown field (or one the given release
 *   lacks) and for a bit selection OVN rejects.
 */
export function resolveField(ref: unknown, options: MatchCheckOptions = {}): ResolvedField {
  const m = typeof ref === 'string' ? FIELD_REF.exec(ref) : null;
  if (m === null) {
    throw new InvalidMatchError('field', ref, 'must be a field name such as ip4.src or reg0[0..3]');
  }
  const name = m[1]!;
  const spec = matchField(name);
  if (spec === undefined) {
    throw new InvalidMatchError('field', ref, `OVN has no field ${name}${suggestion(name)}`);
  }
  const release = options.ovnRelease;
  if (release !== undefined && !isOvnRelease(release)) {
    throw new InvalidMatchError('OVN release', release, 'must be YY.MM, e.g. 23.03');
  }
  if (!fieldInRelease(spec, release)) {
    const range =
      spec.since !== undefined && spec.until !== undefined
        ? `OVN ${spec.since} to ${spec.until} define it`
        : spec.since !== undefined
          ? `OVN defines it from ${spec.since} on`
          : `OVN defines it up to ${spec.until}`;
    throw new InvalidMatchError('field', ref, `OVN ${release} has no field ${name} (${range})`);
  }
  if (m[2] === undefined) return { name, spec, nBits: spec.width };
  const lo = Number(m[2]);
  const hi = m[3] === undefined ? lo : Number(m[3]);
  const f: ResolvedField = { name, spec, nBits: hi - lo + 1 };
  if (spec.kind === 'string') {
    throw new InvalidMatchError('field', ref, `cannot select bits of string field ${name}`);
  }
  if (lo > hi) throw new InvalidMatchError('field', ref, `invalid bit range ${lo} to ${hi}`);
  if (hi >= spec.width) {
    throw new InvalidMatchError(
      'field',
      ref,
      `cannot select bit${lo === hi ? ` ${lo}` : `s ${lo} to ${hi}`} of the ${describeField(f)} (bits 0 to ${spec.width - 1})`,
    );
  }
  if (spec.level === 'nominal' && (lo !== 0 || hi !== spec.width - 1)) {
    throw new InvalidMatchError('field', ref, `cannot select bits of ${describeField(f)}`);
  }
  return f;
}

/** What OVN reads from a constant's text. */
export interface ConstantInfo {
  readonly format: 'decimal' | 'hex' | 'ipv4' | 'ipv6' | 'mac';
  readonly masked: boolean;
  /** OVN's width of the constant: the mask's when masked, else 32/128/48 for addresses and the value's bit length for numbers. */
  readonly width: number;
  /** The value with the mask applied. */
  readonly value: bigint;
}

const MAC = /^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}$/;
const DECIMAL = /^(?:0|[1-9]\d*)$/;
const HEX = /^0[xX]([0-9a-fA-F]+)$/;

function bytesValue(bytes: readonly number[]): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

function word(text: string): { format: ConstantInfo['format']; value: bigint } | undefined {
  if (DECIMAL.test(text)) {
    const value = BigInt(text);
    return value < 1n << 64n ? { format: 'decimal', value } : undefined;
  }
  const hex = HEX.exec(text);
  if (hex !== null) {
    return hex[1]!.replace(/^0+/, '').length <= 256
      ? { format: 'hex', value: BigInt(`0x${hex[1]}`) }
      : undefined;
  }
  if (MAC.test(text)) return { format: 'mac', value: BigInt(`0x${text.replaceAll(':', '')}`) };
  const ip = parseIp(text);
  if (ip !== undefined)
    return { format: ip.family === 4 ? 'ipv4' : 'ipv6', value: bytesValue(ip.bytes) };
  return undefined;
}

const FORMAT_WIDTH = { ipv4: 32, ipv6: 128, mac: 48 } as const;

/**
 * Read a constant's text as OVN's lexer does: decimal (below 2^64), `0x`
 * hex, IPv4, IPv6 or Ethernet, each with an optional `/mask` in the same
 * format (or a decimal prefix length after an IP address).
 * @throws InvalidMatchError when it is not such a constant.
 */
export function constantInfo(text: string): ConstantInfo {
  const slash = text.indexOf('/');
  const v = word(slash < 0 ? text : text.slice(0, slash));
  if (v === undefined)
    throw new InvalidMatchError(
      'constant',
      text,
      'not an OVN integer, address or Ethernet constant',
    );
  if (slash < 0) {
    const width =
      v.format === 'decimal' || v.format === 'hex' ? bitLength(v.value) : FORMAT_WIDTH[v.format];
    return { format: v.format, masked: false, width, value: v.value };
  }
  const m = word(text.slice(slash + 1));
  if (m === undefined)
    throw new InvalidMatchError('constant', text, 'the mask is not an OVN constant');
  let mask: bigint;
  let format = v.format;
  if (m.format === v.format) mask = m.value;
  else if (
    (v.format === 'ipv4' || v.format === 'ipv6') &&
    m.format === 'decimal' &&
    m.value <= BigInt(FORMAT_WIDTH[v.format])
  ) {
    const bits = BigInt(FORMAT_WIDTH[v.format]);
    mask = ((1n << m.value) - 1n) << (bits - m.value);
  } else if (v.format === 'decimal' && v.value === 0n && m.format === 'hex') {
    mask = m.value;
    format = 'hex';
  } else {
    throw new InvalidMatchError('constant', text, 'value and mask have incompatible formats');
  }
  return { format, masked: true, width: bitLength(mask), value: v.value & mask };
}

function describeConstant(text: string, c: ConstantInfo): string {
  if (c.masked) return `the masked constant ${text} (a ${c.width}-bit mask)`;
  switch (c.format) {
    case 'ipv4':
      return `the IPv4 address ${text} (32 bits)`;
    case 'ipv6':
      return `the IPv6 address ${text} (128 bits)`;
    case 'mac':
      return `the Ethernet address ${text} (48 bits)`;
    default:
      return `${text} (${c.width} bits)`;
  }
}

function isStringValue(v: MatchValue): boolean {
  return v.type === 'string' || v.type === 'portGroup';
}

function describeValue(v: MatchValue): string {
  switch (v.type) {
    case 'string':
      return `the string ${JSON.stringify(v.value)}`;
    case 'portGroup':
      return `the port group @${v.name} (a set of port names)`;
    case 'addressSet':
      return `the address set $${v.name} (integer constants)`;
    default:
      return `the integer constant ${v.text}`;
  }
}

/**
 * Check a comparison `field op value(s)` apart from the rules that depend
 * on enclosing `!` (see {@link checkPolarity}).
 * @throws InvalidMatchError naming the field, the value and the reason.
 */
export function checkComparison(
  f: ResolvedField,
  op: MatchOperator,
  values: readonly MatchValue[],
  inSet: boolean,
): void {
  const { name, spec } = f;
  const strings = values.filter(isStringValue);
  if (strings.length > 0 && strings.length < values.length) {
    throw new InvalidMatchError(name, values, 'a set cannot mix strings and integer constants');
  }
  const stringField = spec.kind === 'string';
  for (const v of values) {
    if (isStringValue(v) !== stringField) {
      throw new InvalidMatchError(
        name,
        v,
        stringField
          ? `${describeField(f)} takes strings (port names), not ${describeValue(v)}`
          : `${describeField(f)} takes integer constants (numbers, addresses, $address_sets), not ${describeValue(v)}`,
      );
    }
    if (v.type === 'constant') {
      const c = constantInfo(v.text);
      if (c.width > spec.width) {
        throw new InvalidMatchError(
          name,
          v.text,
          `${describeConstant(v.text, c)} does not fit the ${describeField(f)}`,
        );
      }
    }
  }
  if (op === '==' || op === '!=') return;
  if (inSet)
    throw new InvalidMatchError(name, values, `only == and != compare with a set, not ${op}`);
  if (spec.level !== 'ordinal') {
    throw new InvalidMatchError(
      name,
      op,
      `only == and != apply to the ${describeField(f)}, not ${op}`,
    );
  }
  const first = values[0];
  if (first?.type === 'constant' && constantInfo(first.text).masked) {
    throw new InvalidMatchError(
      name,
      first.text,
      `only == and != take masked constants, not ${op} (select bits instead, e.g. eth.src[0..15] > 0x1111)`,
    );
  }
}

/**
 * The rules of a comparison that depend on whether it stands under an odd
 * number of `!` (`negated`): a nominal field is only tested for equality, a
 * nominal predicate only positively.
 */
export function checkPolarity(
  f: ResolvedField,
  op: MatchOperator,
  values: readonly MatchValue[],
  negated: boolean,
): void {
  const { name, spec } = f;
  if (spec.level !== 'nominal') return;
  if (spec.kind === 'predicate') {
    for (const v of values) {
      if (v.type !== 'constant') continue;
      const positive = (((constantInfo(v.text).value & 1n) === 1n) !== (op === '!=')) !== negated;
      if (!positive) {
        throw new InvalidMatchError(
          name,
          v.text,
          `the nominal predicate ${name} may only be tested positively (${name} or ${name} == 1, not !${name} or ${name} == 0)`,
        );
      }
    }
    return;
  }
  if (op !== (negated ? '!=' : '==')) {
    throw new InvalidMatchError(
      name,
      op,
      `the ${describeField(f)} may only be tested for equality: == (or != under an odd number of !), here ${op}${negated ? ' under !' : ''}`,
    );
  }
}

/**
 * Check a field standing alone (`ip4`, `ct.new`, `!reg0`). `negated` is
 * undefined when the enclosing `!` are not known yet.
 */
export function checkAlone(f: ResolvedField, negated: boolean | undefined): void {
  if (f.spec.kind === 'string') {
    throw new InvalidMatchError(
      f.name,
      f.name,
      `a string field cannot stand alone: compare it, e.g. ${f.name} == "name"`,
    );
  }
  if (negated === undefined) return;
  if (f.nBits > 1 && !negated) {
    throw new InvalidMatchError(
      f.name,
      f.name,
      `a multi-bit field alone needs an explicit != 0 (${f.nBits} bits; only !${f.name} may stand alone, meaning == 0)`,
    );
  }
  checkPolarity(f, '!=', [{ type: 'constant', text: '0' }], negated);
}

const OPERATORS = ['==', '!=', '<', '<=', '>', '>='] as const;

function walk(e: MatchExpr, negated: boolean, options: MatchCheckOptions): void {
  if (e === null || typeof e !== 'object') {
    throw new InvalidMatchError('expression', e, 'not a match expression (build it with match.*)');
  }
  switch (e.type) {
    case 'and':
    case 'or':
      if (!Array.isArray(e.terms)) throw new InvalidMatchError(e.type, e, 'terms must be an array');
      for (const t of e.terms) walk(t, negated, options);
      return;
    case 'not':
      walk(e.term, !negated, options);
      return;
    case 'bool':
      return;
    case 'field':
      checkAlone(resolveField(e.field, options), negated);
      return;
    case 'compare': {
      const f = resolveField(e.field, options);
      if (!(OPERATORS as readonly unknown[]).includes(e.op)) {
        throw new InvalidMatchError('operator', e.op, 'must be ==, !=, <, <=, > or >=');
      }
      const inSet = Array.isArray(e.value);
      const values = (inSet ? e.value : [e.value]) as readonly MatchValue[];
      for (const v of values) {
        if (v === null || typeof v !== 'object')
          throw new InvalidMatchError('value', v, 'unsupported value');
      }
      checkComparison(f, e.op, values, inSet);
      checkPolarity(f, e.op, values, negated);
      return;
    }
    default:
      throw new InvalidMatchError('expression', e, 'unknown expression type');
  }
}

/**
 * Check a whole match tree against OVN's symbol table and parser rules (see
 * the module comment), including the rules that depend on enclosing `!`.
 *
 * ```ts
 * checkMatch(match.not(match.field('ip4')));
 * // InvalidMatchError: match ip4: the nominal predicate ip4 may only be tested positively (…) (value: "0")
 * checkMatch(match.field('ct_mark.obs_stage'), { ovnRelease: '23.03' });
 * // InvalidMatchError: match field: OVN 23.03 has no field ct_mark.obs_stage (OVN defines it from 24.09 on) (…)
 * ```
 * @throws InvalidMatchError for the first problem found.
 */
export function checkMatch(e: MatchExpr, options: MatchCheckOptions = {}): void {
  walk(e, false, options);
}
