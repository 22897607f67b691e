/**
 * The text of the literals and type expressions the generator writes: string
 * and number literals, property names, JSON-like object and array literals,
 * and unions or type references that are broken one member per line when
 * they would not fit on a line. Indentation is left to the TypeScript
 * formatter that every generated file goes through.
 * @module
 */

import type { Json } from './canonical.js';
import { isIdentifier } from './names.js';

/** The line width generated code aims to stay within. */
export const LINE_WIDTH = 100;

/** One level of indentation in generated code. */
export const INDENT = '  ';

/** A string literal, single-quoted unless double quotes need fewer escapes. */
export function tsString(s: string): string {
  const singles = (s.match(/'/g) ?? []).length;
  const doubles = (s.match(/"/g) ?? []).length;
  const json = JSON.stringify(s);
  if (doubles < singles) return json;
  const body = json.slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'");
  return `'${body}'`;
}

/** A number literal (finite; exponents without `+`). */
export function tsNumber(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return String(n).replace('e+', 'e');
}

/** A literal for an atom or JSON scalar. */
export function tsLiteral(value: string | number | boolean | null): string {
  if (typeof value === 'string') return tsString(value);
  if (typeof value === 'number') return tsNumber(value);
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
  /** Objects and arrays nested less deep than this always get one member per line. */
  readonly expand?: number | undefined;
}

/**
 * A JSON value as a literal: on one line when it fits within
 * {@link LINE_WIDTH} (and is not to be expanded), else one member or element
 * per line with trailing commas, recursively.
 */
export function jsonLiteral(value: Json, place: LiteralPlace): string {
  const expand = place.expand ?? 0;
  const inline = inlineJson(value);
  if (value === null || typeof value !== 'object') return inline;
  const entries: readonly (readonly [string | undefined, Json])[] = Array.isArray(value)
    ? (value as readonly Json[]).map((v) => [undefined, v] as const)
    : Object.entries(value);
  if (entries.length === 0) return inline;
  if (expand <= 0 && fits(place.depth, place.before + inline.length + place.after)) return inline;
  const pad = INDENT.repeat(place.depth + 1);
  const lines = entries.map(([key, v]) => {
    const head = key === undefined ? '' : `${propertyName(key)}: `;
    const body = jsonLiteral(v, {
      depth: place.depth + 1,
      before: head.length,
      after: 1,
      expand: expand - 1,
    });
    return `${pad}${head}${body},`;
  });
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${lines.join('\n')}\n${INDENT.repeat(place.depth)}${close}`;
}

/** Whether `length` characters fit on a line indented `depth` levels. */
export function fits(depth: number, length: number): boolean {
  return depth * INDENT.length + length <= LINE_WIDTH;
}

/**
 * A union type after `=` in a type alias at top level: `a | b` when the
 * declaration fits on one line (`before` is the text up to and including
 * `= `), else one `| member` per line.
 */
export function unionType(members: readonly string[], before: number): string {
  if (members.length === 0) return 'never';
  const inline = members.join(' | ');
  if (members.length === 1 || fits(0, before + inline.length + 1)) return inline;
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
