/**
 * The TypeScript type of each column as the codec represents its values:
 * atoms as `number`, `boolean`, `string` or `Uuid<'Table'>`, enums as their
 * generated union, optional columns as `T | null`, sets as readonly arrays and
 * maps as readonly records keyed by the key's string form.
 * @module
 */

import type { BaseType, ColumnSchema } from 'ovnkit/ovsdb';
import { tsString } from './literals.js';
import type { EnumPlan, TablePlan } from './plan.js';

/** The type of one atom of `base`, or the enum's union when it has one. */
function baseTsType(base: BaseType, enumPlan: EnumPlan | undefined): string {
  if (enumPlan !== undefined) return enumPlan.name;
  switch (base.type) {
    case 'integer':
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

/** The string form of a map key type (the codec's key representation). */
function mapKeyTsType(base: BaseType, enumPlan: EnumPlan | undefined): string {
  if (enumPlan !== undefined) return enumPlan.name;
  switch (base.type) {
    case 'integer':
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
