/**
 * The TypeScript type of each column as the codec represents its values:
 * atoms as `number`, `Int64`, `boolean`, `string` or `Uuid<'Table'>`, enums as
 * their generated union, optional columns as `T | null`, sets as readonly
 * arrays and maps as readonly records keyed by the key's string form.
 *
 * An integer is `number` when the schema bounds it within ±(2^53−1) on both
 * sides (`minInteger` and `maxInteger`), else `Int64` (`number | bigint`: the
 * codec gives a `bigint` beyond ±(2^53−1)).
 * @module
 */

import type { Atom, BaseType, ColumnSchema } from 'ovnkit/ovsdb';
import { tsString } from './literals.js';
import type { EnumPlan, TablePlan } from './plan.js';

/** The name generated code gives OVSDB's 64-bit integer type (`number | bigint`). */
export const INT64_TYPE = 'Int64';

/**
 * True when `base` is an integer that may lie beyond ±(2^53−1), so that its
 * values are `Int64` rather than `number`: no enum, and `minInteger` or
 * `maxInteger` absent or beyond ±(2^53−1) (a canonical bound beyond is a
 * bigint).
 */
export function isWideInteger(base: BaseType | undefined): boolean {
  if (base?.type !== 'integer' || base.enum !== undefined) return false;
  return typeof base.minInteger !== 'number' || typeof base.maxInteger !== 'number';
}

/** True when a value of `column` (a key, element or map value) is typed `Int64`. */
export function hasWideInteger(column: ColumnSchema): boolean {
  return isWideInteger(column.type.key) || isWideInteger(column.type.value);
}

/** The type of one atom of `base`, or the enum's union when it has one. */
function baseTsType(base: BaseType, enumPlan: EnumPlan | undefined): string {
  if (enumPlan !== undefined) return enumPlan.name;
  switch (base.type) {
    case 'integer':
      return isWideInteger(base) ? INT64_TYPE : 'number';
    case 'real':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'uuid':
      return base.refTable === undefined ? 'Uuid' : `Uuid<${tsString(base.refTable)}>`;
  }
}

/**
 * The string form of a map key type (the codec's key representation). A
 * record key is a string, so an integer key that may lie beyond ±(2^53−1) is
 * a `number` or, beyond, its decimal digits (the template type `${bigint}`).
 */
function mapKeyTsType(base: BaseType, enumPlan: EnumPlan | undefined): string {
  if (enumPlan !== undefined) return enumPlan.name;
  switch (base.type) {
    case 'integer':
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a template literal type
      return isWideInteger(base) ? 'number | `${bigint}`' : 'number';
    case 'real':
      return 'number';
    case 'boolean':
      return "'false' | 'true'";
    default:
      return baseTsType(base, undefined);
  }
}

/** The TypeScript type of `column` of the table planned by `plan`, on one line. */
export function columnTsType(plan: TablePlan, column: ColumnSchema): string {
  const { type } = column;
  const enums = plan.enums.get(column.name);
  switch (type.kind) {
    case 'scalar':
      return baseTsType(type.key, enums?.element);
    case 'optional':
      return `${baseTsType(type.key, enums?.element)} | null`;
    case 'set':
      return `readonly ${baseTsType(type.key, enums?.element)}[]`;
    case 'map': {
      const key = mapKeyTsType(type.key, enums?.key);
      const value = baseTsType(type.value ?? { type: 'string' }, enums?.value);
      // A record over a finite key set holds only some of the keys.
      const finite = enums?.key !== undefined || type.key.type === 'boolean';
      const record = `Record<${key}, ${value}>`;
      return `Readonly<${finite ? `Partial<${record}>` : record}>`;
    }
  }
}

/** The default atom of `base`'s type, as the TSDoc names it. */
function defaultAtomText(base: BaseType): string {
  switch (base.type) {
    case 'integer':
    case 'real':
      return '`0`';
    case 'boolean':
      return '`false`';
    case 'string':
      return '`""`';
    case 'uuid':
      return 'the all-zero UUID';
  }
}

/** True when `a` is the default atom of `base`'s type (`0`, `false`, `""`, the all-zero UUID). */
function isDefaultAtom(a: Atom, base: BaseType): boolean {
  switch (base.type) {
    case 'integer':
    case 'real':
      return a === 0 || a === 0n;
    case 'boolean':
      return a === false;
    case 'string':
      return a === '';
    case 'uuid':
      return a === '00000000-0000-0000-0000-000000000000';
  }
}

/** Why the default atom of `base` breaks `base`'s own constraints, or undefined when it does not. */
function atomViolation(base: BaseType): string | undefined {
  const atom = defaultAtomText(base);
  if (base.enum !== undefined && !base.enum.some((a) => isDefaultAtom(a, base))) {
    return `the default ${atom} is not one of the allowed values`;
  }
  const min = base.type === 'integer' ? base.minInteger : base.minReal;
  const max = base.type === 'integer' ? base.maxInteger : base.maxReal;
  if (base.type === 'integer' || base.type === 'real') {
    if (min !== undefined && min > 0) return `the default ${atom} is below the minimum ${min}`;
    if (max !== undefined && max < 0) return `the default ${atom} is above the maximum ${max}`;
  }
  if (base.type === 'string' && base.minLength !== undefined && base.minLength > 0) {
    return `the default ${atom} is shorter than the minimum length ${base.minLength}`;
  }
  if (base.type === 'uuid' && base.refTable !== undefined) {
    // A strong reference to no row fails referential integrity; a weak one is
    // removed, which leaves the column below its minimum.
    return `the default, ${atom}, refers to no row of \`${base.refTable}\``;
  }
  return undefined;
}

/**
 * Why an insert must give `column`: the reason its default value breaks the
 * column's own constraints, so that ovsdb-server refuses an insert that
 * leaves it out; undefined when the default is allowed.
 *
 * The default of a column is `min` default atoms (RFC 7047 §5.2.1,
 * `ovsdb_datum_init_default`): the empty set or map when `min` is 0, which
 * every column allows, else one default key atom (and, for a map, one
 * default value atom). That atom breaks an enum without it, `minInteger` or
 * `minReal` above 0, `maxInteger` or `maxReal` below 0, `minLength` above 0,
 * or a reference (`refTable`): the all-zero UUID names no row.
 */
export function defaultViolation(column: ColumnSchema): string | undefined {
  const { type } = column;
  if (type.min === 0) return undefined;
  const key = atomViolation(type.key);
  if (key !== undefined) return type.value === undefined ? key : `${key} for a key`;
  if (type.value === undefined) return undefined;
  const value = atomViolation(type.value);
  return value === undefined ? undefined : `${value} for a value`;
}
