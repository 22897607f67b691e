/**
 * A parser for OVN match expressions, producing the {@link MatchExpr} tree of
 * `expr.ts`. Its lexer follows OVN's (`lib/lex.c`): identifiers
 * `[A-Za-z_][A-Za-z0-9_.]*`, string literals with JSON escapes, numeric
 * constants (decimal, `0x` hex, IPv4, IPv6, Ethernet, each with an optional
 * `/mask`), `$address_set`, `@port_group`, `//` and `/* *\/` comments. Its
 * grammar follows OVN's expression parser: `!` binds tightest and takes a
 * field, a constant or a parenthesized expression (`!(tcp.dst == 22)`, not
 * `!tcp.dst == 22` or `!!ip4`), `&&` and `||` cannot be mixed without
 * parentheses, parentheses make no node of their own, a constant `0` or `1`
 * alone is a boolean, and a set is `{v, v, …}` (commas optional, at least one
 * value). The parsed tree is then checked against OVN's symbol table
 * (`checkMatch` in `check.ts`). Not supported: comparisons with the
 * constant on the left or ranges (`1 < tcp.dst < 5`), `is_chassis_resident()`
 * and template strings.
 *
 * `parseMatch(formatMatch(e))` returns a tree equal to `e` for every tree the
 * builders make: this is what the property tests check.
 *
 * ```ts
 * parseMatch('outport == "p1" && ip4.src == {10.0.0.0/24, $as1}');
 * // { type: 'and', terms: [
 * //   { type: 'compare', field: 'outport', op: '==', value: { type: 'string', value: 'p1' } },
 * //   { type: 'compare', field: 'ip4.src', op: '==', value: [
 * //       { type: 'constant', text: '10.0.0.0/24' }, { type: 'addressSet', name: 'as1' } ] } ] }
 * ```
 * @module
 */

import { MatchSyntaxError } from '../errors.js';
import { parseIp } from '../ip.js';
import { checkMatch, type MatchCheckOptions } from './check.js';
import type { MatchExpr, MatchOperator, MatchValue } from './types.js';

type Punct =
  | '('
  | ')'
  | '{'
  | '}'
  | '['
  | ']'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '!'
  | '&&'
  | '||'
  | ','
  | '..'
  | '='
  | '<->'
  | ';'
  | '-'
  | '--'
  | ':';

type Token =
  | { readonly kind: 'id'; readonly text: string; readonly at: number }
  | { readonly kind: 'string'; readonly value: string; readonly at: number }
  | {
      readonly kind: 'const';
      readonly text: string;
      readonly format: ConstFormat;
      readonly at: number;
    }
  | { readonly kind: 'addressSet'; readonly name: string; readonly at: number }
  | { readonly kind: 'portGroup'; readonly name: string; readonly at: number }
  | { readonly kind: 'punct'; readonly text: Punct; readonly at: number }
  | { readonly kind: 'end'; readonly at: number };

type ConstFormat = 'decimal' | 'hex' | 'ipv4' | 'ipv6' | 'mac';

const RELOPS: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=']);
const MAC17 = /^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}$/;

function isAlnum(c: string | undefined): boolean {
  return c !== undefined && /^[A-Za-z0-9]$/.test(c);
}
function isId1(c: string | undefined): boolean {
  return c !== undefined && /^[A-Za-z_.]$/.test(c);
}
function isIdN(c: string | undefined): boolean {
  return c !== undefined && /^[A-Za-z0-9_.]$/.test(c);
}
function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}

class Lexer {
  private p = 0;

  constructor(private readonly input: string) {}

  private fail(at: number, reason: string): never {
    throw new MatchSyntaxError(this.input, at, reason);
  }

  next(): Token {
    const s = this.input;
    for (;;) {
      const c = s[this.p];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f') {
        this.p++;
        continue;
      }
      if (c === '/' && s[this.p + 1] === '/') {
        while (this.p < s.length && s[this.p] !== '\n') this.p++;
        continue;
      }
      if (c === '/' && s[this.p + 1] === '*') {
        const start = this.p;
        this.p += 2;
        for (;;) {
          if (s[this.p] === '*' && s[this.p + 1] === '/') {
            this.p += 2;
            break;
          }
          if (this.p >= s.length || s[this.p] === '\n' || s[this.p] === '\u0000') {
            this.fail(start, '`/*` without matching `*/`');
          }
          this.p++;
        }
        continue;
      }
      break;
    }
    const at = this.p;
    const c = s[at];
    if (c === undefined || c === '\u0000') return { kind: 'end', at };
    const two = s.slice(at, at + 2);
    const punct = (text: Punct, len: number): Token => {
      this.p += len;
      return { kind: 'punct', text, at };
    };
    switch (c) {
      case '/':
        return this.fail(at, '`/` is only valid as part of `//` or `/*`');
      case '(':
      case ')':
      case '{':
      case '}':
      case '[':
      case ']':
      case ',':
      case ';':
        return punct(c, 1);
      case '=':
        return two === '==' ? punct('==', 2) : punct('=', 1);
      case '!':
        return two === '!=' ? punct('!=', 2) : punct('!', 1);
      case '&':
        return two === '&&' ? punct('&&', 2) : this.fail(at, '`&` is only valid as part of `&&`');
      case '|':
        return two === '||' ? punct('||', 2) : this.fail(at, '`|` is only valid as part of `||`');
      case '<':
        if (two === '<=') return punct('<=', 2);
        if (s.slice(at, at + 3) === '<->') return punct('<->', 3);
        return punct('<', 1);
      case '>':
        return two === '>=' ? punct('>=', 2) : punct('>', 1);
      case '.':
        return two === '..'
          ? punct('..', 2)
          : this.fail(at, '`.` is only valid as part of `..` or a number');
      case '-':
        return two === '--' ? punct('--', 2) : punct('-', 1);
      case '$':
      case '@': {
        this.p++;
        if (!isId1(s[this.p])) {
          this.fail(at, `\`${c}\` must be followed by a valid identifier`);
        }
        const name = this.identifier();
        return c === '$' ? { kind: 'addressSet', name, at } : { kind: 'portGroup', name, at };
      }
      case ':':
        if (s[at + 1] !== ':') return punct(':', 1);
        return this.constant();
      case '"':
        return this.string();
      default:
        break;
    }
    if (c >= '0' && c <= '9') return this.constant();
    if (isHex(c)) {
      let q = at;
      while (isHex(s[q])) q++;
      if (s[q] === ':') return this.constant();
    }
    if (isId1(c)) return { kind: 'id', text: this.identifier(), at };
    const code = c.codePointAt(0)!;
    return this.fail(
      at,
      code >= 0x20 && code < 0x7f
        ? `invalid character \`${c}\``
        : `invalid character U+${code.toString(16).padStart(4, '0')}`,
    );
  }

  private identifier(): string {
    const start = this.p;
    this.p++;
    while (isIdN(this.input[this.p])) this.p++;
    return this.input.slice(start, this.p);
  }

  /** One integer-like word, as OVN's lexer delimits it. */
  private word(): { text: string; format: ConstFormat; at: number } {
    const s = this.input;
    const at = this.p;
    let sawDot = false;
    let q = at;
    for (;;) {
      const ch = s[q];
      if (isAlnum(ch) || (ch === ':' && !sawDot) || (ch === '.' && s[q + 1] !== '.')) {
        if (ch === '.') sawDot = true;
        q++;
        continue;
      }
      break;
    }
    const text = s.slice(at, q);
    this.p = q;
    if (text.length === 0) this.fail(at, 'integer constant expected');
    if (text.length === 17 && MAC17.test(text)) return { text, format: 'mac', at };
    if (/^\d+$/.test(text)) {
      if (text.length > 1 && text[0] === '0')
        this.fail(at, 'decimal constants must not have leading zeros');
      if (BigInt(text) >= 1n << 64n) this.fail(at, 'decimal constants must be less than 2**64');
      return { text, format: 'decimal', at };
    }
    if (text[0] === '0' && (text[1] === 'x' || text[1] === 'X')) {
      const digits = text.slice(2);
      if (digits === '') this.fail(at, `hex digits expected following 0${text[1]}`);
      if (!/^[0-9a-fA-F]+$/.test(digits)) this.fail(at, 'invalid syntax in hexadecimal constant');
      if (digits.replace(/^0+/, '').length > 256) this.fail(at, 'hexadecimal constant too large');
      return { text, format: 'hex', at };
    }
    const ip = text.length < 46 ? parseIp(text) : undefined;
    if (ip !== undefined) return { text, format: ip.family === 4 ? 'ipv4' : 'ipv6', at };
    return this.fail(at, `invalid numeric constant \`${text}\``);
  }

  private constant(): Token {
    const value = this.word();
    if (this.input[this.p] !== '/')
      return { kind: 'const', text: value.text, format: value.format, at: value.at };
    this.p++;
    if (this.p >= this.input.length) this.fail(this.p, 'integer constant expected');
    const mask = this.word();
    const ok =
      value.format === mask.format ||
      (value.format === 'ipv4' && mask.format === 'decimal' && BigInt(mask.text) <= 32n) ||
      (value.format === 'ipv6' && mask.format === 'decimal' && BigInt(mask.text) <= 128n) ||
      (value.format === 'decimal' && mask.format === 'hex' && value.text === '0');
    if (!ok) this.fail(value.at, 'value and mask have incompatible formats');
    return {
      kind: 'const',
      text: this.input.slice(value.at, this.p),
      format: value.format === 'decimal' && mask.format === 'hex' ? 'hex' : value.format,
      at: value.at,
    };
  }

  private string(): Token {
    const s = this.input;
    const at = this.p;
    let q = at + 1;
    let out = '';
    for (;;) {
      const ch = s[q];
      if (ch === undefined || ch === '\u0000') this.fail(at, 'input ends inside quoted string');
      if (ch === '"') break;
      if (ch !== '\\') {
        out += ch;
        q++;
        continue;
      }
      const e = s[q + 1];
      q += 2;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const first = this.hex4(q - 2, q);
          q += 4;
          if (first >= 0xd800 && first <= 0xdbff) {
            if (s[q] !== '\\' || s[q + 1] !== 'u') this.fail(q, 'malformed escaped surrogate pair');
            const second = this.hex4(q, q + 2);
            if (second < 0xdc00 || second > 0xdfff) {
              this.fail(q, 'second half of escaped surrogate pair is not trailing surrogate');
            }
            q += 6;
            out += String.fromCharCode(first, second);
          } else if (first >= 0xdc00 && first <= 0xdfff) {
            this.fail(q - 6, 'unpaired trailing surrogate');
          } else {
            out += String.fromCharCode(first);
          }
          break;
        }
        case undefined:
          return this.fail(at, 'input ends inside quoted string');
        default:
          return this.fail(q - 2, `bad escape \`\\${e}\` in quoted string`);
      }
    }
    this.p = q + 1;
    return { kind: 'string', value: out, at };
  }

  private hex4(at: number, from: number): number {
    const h = this.input.slice(from, from + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail(at, 'malformed \\u escape');
    const v = Number.parseInt(h, 16);
    if (v === 0) this.fail(at, 'null bytes not supported in quoted strings');
    return v;
  }
}

class Parser {
  private readonly lexer: Lexer;
  private tok: Token;

  constructor(private readonly input: string) {
    this.lexer = new Lexer(input);
    this.tok = this.lexer.next();
  }

  private fail(reason: string, at = this.tok.at): never {
    throw new MatchSyntaxError(this.input, at, reason);
  }

  private advance(): Token {
    const t = this.tok;
    this.tok = this.lexer.next();
    return t;
  }

  private isPunct(text: Punct): boolean {
    return this.tok.kind === 'punct' && this.tok.text === text;
  }

  private matchPunct(text: Punct): boolean {
    if (!this.isPunct(text)) return false;
    this.advance();
    return true;
  }

  private expect(text: Punct): void {
    if (!this.matchPunct(text)) this.fail(`expecting \`${text}\``);
  }

  parse(): MatchExpr {
    const e = this.expr();
    if (this.tok.kind !== 'end') this.fail('expecting end of input');
    return e;
  }

  private expr(): MatchExpr {
    const first = this.not();
    const op = this.isPunct('&&') ? '&&' : this.isPunct('||') ? '||' : undefined;
    if (op === undefined) return first;
    const terms: MatchExpr[] = [first];
    while (this.matchPunct(op)) terms.push(this.not());
    if (this.isPunct('&&') || this.isPunct('||')) {
      this.fail('`&&` and `||` must be parenthesized when used together');
    }
    return { type: op === '&&' ? 'and' : 'or', terms };
  }

  private not(): MatchExpr {
    const bang = this.tok.at;
    if (!this.matchPunct('!')) return this.primary();
    if (this.isPunct('!')) this.fail('`!` cannot follow `!` (parenthesize: `!(!x)`)');
    const parenthesized = this.isPunct('(');
    const term = this.primary();
    if (!parenthesized && term.type === 'compare') {
      this.fail('missing parentheses around the comparison after `!`', bang);
    }
    return { type: 'not', term };
  }

  private primary(): MatchExpr {
    const t = this.tok;
    if (this.matchPunct('(')) {
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t.kind === 'id') {
      this.advance();
      const field = t.text + this.subscript();
      if (this.tok.kind === 'punct' && RELOPS.has(this.tok.text)) {
        const op = this.advance() as { text: MatchOperator };
        return { type: 'compare', field, op: op.text, value: this.rhs(op.text) };
      }
      return { type: 'field', field };
    }
    if (t.kind === 'const') {
      this.advance();
      if (this.tok.kind === 'punct' && RELOPS.has(this.tok.text)) {
        this.fail('a comparison must have the field on the left', t.at);
      }
      if (t.text === '0' || t.text === '1') return { type: 'bool', value: t.text === '1' };
      return this.fail(
        `constant \`${t.text}\` is not a boolean (only 0 and 1 may stand alone)`,
        t.at,
      );
    }
    if (t.kind === 'end') return this.fail('unexpected end of input');
    return this.fail('expecting a field, `(`, `!` or a constant');
  }

  private subscript(): string {
    if (!this.isPunct('[')) return '';
    this.advance();
    const lo = this.tok;
    if (lo.kind !== 'const' || lo.format !== 'decimal') this.fail('expecting a bit index');
    this.advance();
    let text = `[${lo.text}`;
    if (this.matchPunct('..')) {
      const hi = this.tok;
      if (hi.kind !== 'const' || hi.format !== 'decimal') this.fail('expecting a bit index');
      this.advance();
      text += `..${hi.text}`;
    }
    this.expect(']');
    return `${text}]`;
  }

  private rhs(op: MatchOperator): MatchValue | MatchValue[] {
    if (this.matchPunct('{')) {
      if (op !== '==' && op !== '!=') this.fail(`only == and != may compare with a set, not ${op}`);
      const values: MatchValue[] = [];
      do {
        values.push(this.value(op, true));
        this.matchPunct(',');
      } while (!this.matchPunct('}'));
      return values;
    }
    return this.value(op, false);
  }

  private value(op: MatchOperator, inSet: boolean): MatchValue {
    const t = this.tok;
    switch (t.kind) {
      case 'string':
        this.advance();
        if (op !== '==' && op !== '!=') this.fail(`${op} compares numbers only`, t.at);
        return { type: 'string', value: t.value };
      case 'const':
        this.advance();
        if (this.isPunct('..')) this.fail('ranges are not supported here', t.at);
        return { type: 'constant', text: t.text };
      case 'addressSet':
        this.advance();
        return { type: 'addressSet', name: t.name };
      case 'portGroup':
        this.advance();
        return { type: 'portGroup', name: t.name };
      case 'end':
        return this.fail(inSet ? 'expecting `}`' : 'expecting a value');
      default:
        return this.fail('expecting a string, a constant, `$name` or `@name`');
    }
  }
}

/**
 * Parse an OVN match expression and check it against OVN's symbol table and
 * parser rules (`checkMatch`: known fields, value kinds and widths,
 * operators, `!`), optionally those of one OVN release.
 *
 * ```ts
 * parseMatch('tcp.dst == "443"');
 * // InvalidMatchError: match tcp.dst: 16-bit ordinal field tcp.dst takes integer constants (…), not the string "443"
 * parseMatch('ct_mark.obs_stage == 1', { ovnRelease: '23.03' });
 * // InvalidMatchError: match field: OVN 23.03 has no field ct_mark.obs_stage (…)
 * ```
 * @throws MatchSyntaxError with the offset and reason when it does not parse.
 * @throws InvalidMatchError when it parses but OVN would reject it.
 */
export function parseMatch(input: string, options: MatchCheckOptions = {}): MatchExpr {
  if (typeof input !== 'string')
    throw new MatchSyntaxError(String(input), 0, 'the input must be a string');
  const e = new Parser(input).parse();
  checkMatch(e, options);
  return e;
}
