/**
 * The text of the literals and type expressions the generator writes: string
 * and number literals, property names, JSON-like object and array literals,
 * unions and type references. The TypeScript formatter, which every generated
 * file goes through, settles spacing and indentation but never breaks a line;
 * so where a long literal, union or argument list breaks is decided here: it
 * stays on one line when that fits within {@link LINE_WIDTH} columns, else it
 * gets one member per line (numbers and bigints: as many per line as fit).
 * @module
 */

import type { Json } from './canonical.js';
import { isIdentifier } from './names.js';

/** The line width generated code aims to stay within. */
export const LINE_WIDTH = 100;

/** One level of indentation in generated code. */
export const INDENT = '  ';

/**
 * A string literal, single-quoted unless double quotes need fewer escapes.
 * Every line terminator is escaped (U+2028 and U+2029 too, which JSON leaves
 * as they are), so the literal is always one line.
 */
export function tsString(s: string): string {
  // Printable ASCII without quotes or backslashes needs no escapes (the common case).
  if (/^[ !#-&(-[\]-~]*$/.test(s)) return `'${s}'`;
  const singles = (s.match(/'/g) ?? []).length;
  const doubles = (s.match(/"/g) ?? []).length;
  const json = JSON.stringify(s).replace(/[\u2028\u2029]/g, unicodeEscape);
  if (doubles < singles) return json;
  const body = json.slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'");
  return `'${body}'`;
}

/** `\uXXXX` for one UTF-16 code unit. */
function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `s` as text that cannot end a `//` comment: itself when it is printable
 * ASCII, else a string literal with every other character escaped (no line
 * terminator, control or bidirectional character: nothing but ASCII).
 */
export function asciiText(s: string): string {
  if (/^[ -~]*$/.test(s)) return s;
  return tsString(s).replace(/[^ -~]/g, unicodeEscape);
}

/** A number literal (finite; exponents without `+`). */
export function tsNumber(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return String(n).replace('e+', 'e');
}

/** A literal for an atom or JSON scalar (a bigint as `123n`). */
export function tsLiteral(value: string | number | bigint | boolean | null): string {
  if (typeof value === 'string') return tsString(value);
  if (typeof value === 'number') return tsNumber(value);
  if (typeof value === 'bigint') return `${value}n`;
  return String(value);
}

/** An object member or property signature name: bare when it is an identifier, else quoted. */
export function propertyName(name: string): string {
  return isIdentifier(name) ? name : tsString(name);
}

/** A JSON value as a literal on one line: `{ a: 1, b: ['x'] }`. */
export function inlineJson(value: Json): string {
  if (value === null || typeof value !== 'object') return tsLiteral(value);
  if (Array.isArray(value)) {
    const items = value as readonly Json[];
    return `[${items.map(inlineJson).join(', ')}]`;
  }
  const members = Object.entries(value).map(([k, v]) => `${propertyName(k)}: ${inlineJson(v)}`);
  return members.length === 0 ? '{}' : `{ ${members.join(', ')} }`;
}

/** Where a literal starts on its line, for {@link jsonLiteral}. */
export interface LiteralPlace {
  /** Indentation depth of the line the literal starts on. */
  readonly depth: number;
  /** Characters before the literal on that line, after the indentation. */
  readonly before: number;
  /** Characters after the literal on its last line (e.g. `,` or ` as const;`). */
  readonly after: number;
}

/**
 * A JSON value as a literal: on one line when it fits within
 * {@link LINE_WIDTH}, else one member or element per line with trailing
 * commas (numbers and bigints packed as many per line as fit), recursively.
 */
export function jsonLiteral(value: Json, place: LiteralPlace): string {
  const inline = inlineJson(value);
  if (value === null || typeof value !== 'object') return inline;
  if (fits(place.depth, place.before + inline.length + place.after)) return inline;
  const depth = place.depth + 1;
  if (Array.isArray(value)) {
    const items = value as readonly Json[];
    if (items.length === 0) return inline;
    if (items.every((i) => typeof i === 'number' || typeof i === 'bigint')) {
      return numberArray(items, place.depth);
    }
    return arrayLiteral(
      items.map((v) => jsonLiteral(v, { depth, before: 0, after: 1 })),
      place.depth,
    );
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return inline;
  return objectLiteral(
    entries.map(([k, v]) => [
      k,
      jsonLiteral(v, { depth, before: propertyName(k).length + 2, after: 1 }),
    ]),
    place.depth,
  );
}

/**
 * An object literal with one member per line and trailing commas, starting on
 * a line indented `depth` levels; `members` are name and value text.
 */
export function objectLiteral(
  members: readonly (readonly [string, string])[],
  depth: number,
): string {
  if (members.length === 0) return '{}';
  const pad = INDENT.repeat(depth + 1);
  const lines = members.map(([k, v]) => `${pad}${propertyName(k)}: ${v},`);
  return `{\n${lines.join('\n')}\n${INDENT.repeat(depth)}}`;
}

/** An array literal with one element per line and trailing commas (see {@link objectLiteral}). */
export function arrayLiteral(items: readonly string[], depth: number): string {
  if (items.length === 0) return '[]';
  const pad = INDENT.repeat(depth + 1);
  return `[\n${items.map((i) => `${pad}${i},`).join('\n')}\n${INDENT.repeat(depth)}]`;
}

/** Numbers (and bigints) packed onto as few lines as fit, each followed by a comma. */
function numberArray(items: readonly (number | bigint)[], depth: number): string {
  const lines: string[] = [];
  let line = '';
  for (const n of items) {
    const item = `${tsLiteral(n)},`;
    if (line !== '' && !fits(depth + 1, line.length + 1 + item.length)) {
      lines.push(line);
      line = item;
    } else line = line === '' ? item : `${line} ${item}`;
  }
  lines.push(line);
  const pad = INDENT.repeat(depth + 1);
  return `[\n${lines.map((l) => `${pad}${l}`).join('\n')}\n${INDENT.repeat(depth)}]`;
}

/** Whether `length` characters fit on a line indented `depth` levels. */
export function fits(depth: number, length: number): boolean {
  return depth * INDENT.length + length <= LINE_WIDTH;
}

/**
 * The type of a top-level `export type name = type;`: on the same line when
 * the declaration fits, else on the next line, indented.
 */
export function aliasedType(name: string, type: string): string {
  if (type.includes('\n') || fits(0, `export type ${name} = ${type};`.length)) return type;
  return `\n${INDENT}${type}`;
}

/**
 * The union of `members` as the type of a top-level `export type name`:
 * `a | b` when the declaration fits on one line, else one `| member` per line.
 * An empty union is `never`.
 */
export function aliasedUnion(name: string, members: readonly string[]): string {
  if (members.length === 0) return 'never';
  if (members.length === 1) return aliasedType(name, members[0]!);
  const inline = members.join(' | ');
  if (fits(0, `export type ${name} = ${inline};`.length)) return inline;
  return members.map((m) => `\n${INDENT}| ${m}`).join('');
}

/**
 * A type reference `Name<Args>` written at indentation `depth` after `before`
 * characters, its arguments broken one per line when it would not fit.
 */
export function typeReference(
  name: string,
  args: readonly string[],
  depth: number,
  before: number,
  after: number,
): string {
  const inline = `${name}<${args.join(', ')}>`;
  if (args.length < 2 || fits(depth, before + inline.length + after)) return inline;
  const pad = INDENT.repeat(depth + 1);
  return `${name}<\n${args.map((a) => `${pad}${a}`).join(',\n')}\n${INDENT.repeat(depth)}>`;
}
