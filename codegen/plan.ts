/**
 * The naming plan of one generated database: for every table its file and
 * exported names, and for every enum-typed column the name of its value
 * list. Names are handed out in a fixed order (model names, then row
 * interfaces, then derived names, then enums; tables sorted) so that a
 * collision renames the same declaration every time.
 * @module
 */

import type { Atom, BaseType, DatabaseSchema, TableSchema } from 'ovnkit/ovsdb';
import { fileStem, NameRegistry, pascalCase } from './names.js';

/** An enum-typed part of a column and the exported names of its values. */
export interface EnumPlan {
  /** The exported `const` array and type alias name, e.g. `AclAction`. */
  readonly name: string;
  /** The column the enum belongs to. */
  readonly column: string;
  /** Which part of the column: its elements, or a map's key or value. */
  readonly role: 'element' | 'key' | 'value';
  /** The allowed values, sorted. */
  readonly values: readonly Atom[];
}

/** Exported names and file of one table. */
export interface TablePlan {
  readonly table: TableSchema;
  /** File name in the output directory, e.g. `logical-switch-port.ts`. */
  readonly file: string;
  /** Row interface, e.g. `LogicalSwitchPort`. */
  readonly row: string;
  /** Insert type, e.g. `LogicalSwitchPortInsert`. */
  readonly insert: string;
  /** Update type, e.g. `LogicalSwitchPortUpdate`. */
  readonly update: string;
  /** Union of declared column names, e.g. `LogicalSwitchPortColumn`. */
  readonly columns: string;
  /** Union of mutable column names, e.g. `LogicalSwitchPortMutableColumn`. */
  readonly mutableColumns: string;
  /** The table's schema constant, e.g. `LogicalSwitchPortTable`. */
  readonly meta: string;
  /** Enums by column, then role. */
  readonly enums: ReadonlyMap<string, Partial<Record<EnumPlan['role'], EnumPlan>>>;
}

/** The plan of a whole database. */
export interface ModelPlan {
  readonly schema: DatabaseSchema;
  /** The model constant, e.g. `NB`. */
  readonly model: string;
  /** The table map type, e.g. `NBTables`. */
  readonly tableMap: string;
  /** The constant holding the schema document as given, e.g. `NBSchemaJson` (when embedded). */
  readonly schemaJson: string | undefined;
  /** Tables sorted by name. */
  readonly tables: readonly TablePlan[];
}

const RESERVED_FILES = new Set(['index', 'model']);

/**
 * Plan names for `schema` (enums already sorted) with model name `model`;
 * with `embedSchema`, also a name for the schema document's constant.
 */
export function planModel(schema: DatabaseSchema, model: string, embedSchema = false): ModelPlan {
  const names = new NameRegistry();
  if (names.has(model)) {
    throw new Error(`model name ${model} is reserved; choose another with --name`);
  }
  names.reserve(model);
  const tableMap = names.claim(`${model}Tables`, `${model}TableMap`);
  const schemaJson = embedSchema
    ? names.claim(`${model}SchemaJson`, `${model}SchemaDocument`)
    : undefined;

  const tableNames = Object.keys(schema.tables).sort();
  const bases = new Map(tableNames.map((t) => [t, pascalCase(t) || 'Table']));
  const rows = new Map<string, string>();
  for (const t of tableNames) {
    const base = bases.get(t)!;
    rows.set(t, names.claim(base, `${base}Row`));
  }

  const files = new Set<string>();
  const plans: TablePlan[] = tableNames.map((t) => {
    const table = schema.tables[t]!;
    const base = bases.get(t)!;
    let stem = fileStem(t);
    if (RESERVED_FILES.has(stem) || files.has(stem)) stem = `${stem}-table`;
    for (let n = 2; files.has(stem); n++) stem = `${fileStem(t)}-${n}`;
    files.add(stem);
    const row = rows.get(t)!;
    // Derived names start from the PascalCase name, or from the row name when that was renamed.
    const derived = (suffix: string): string => names.claim(`${base}${suffix}`, `${row}${suffix}`);
    return {
      table,
      file: `${stem}.ts`,
      row,
      insert: derived('Insert'),
      update: derived('Update'),
      columns: derived('Column'),
      mutableColumns: derived('MutableColumn'),
      meta: derived('Table'),
      enums: new Map(),
    };
  });

  for (const plan of plans) {
    const base = bases.get(plan.table.name)!;
    const { row } = plan;
    const enums = plan.enums as Map<string, Partial<Record<EnumPlan['role'], EnumPlan>>>;
    for (const col of plan.table.columnNames) {
      const { type } = plan.table.columns[col]!;
      const colName = pascalCase(col);
      const entry: Partial<Record<EnumPlan['role'], EnumPlan>> = {};
      const add = (role: EnumPlan['role'], b: BaseType | undefined, suffix: string): void => {
        if (b?.enum === undefined || b.type === 'uuid') return;
        const name = names.claim(
          `${base}${colName}${suffix}`,
          `${row}${colName}${suffix}`,
          `${base}${colName}${suffix}Enum`,
        );
        entry[role] = { name, column: col, role, values: b.enum };
      };
      if (type.kind === 'map') {
        add('key', type.key, 'Key');
        add('value', type.value, 'Value');
      } else add('element', type.key, '');
      if (Object.keys(entry).length > 0) enums.set(col, entry);
    }
  }
  return { schema, model, tableMap, schemaJson, tables: plans };
}
