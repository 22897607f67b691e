/**
 * How the test kit writes rows and values for people: a row by its name
 * (from the seed or the expected state) or else by its natural key (the
 * schema's first index, or a few identifying columns), a reference by the
 * row it points to, sets and maps as they read in the model. Never a bare
 * UUID, unless it points nowhere.
 * @module
 */

import type { Atom, BaseType, ColumnType, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { isDefaultDatum } from '../../ovsdb/values/defaults.js';
import type { Datum } from '../../ovsdb/values/sorted-datum.js';
import { columnType } from '../../server/engine/table-store.js';
import { seedNameOf } from './names.js';
import type { State, StateRow } from './state.js';

/** A name not bound to a row yet, inside a datum of an expected row: never a real atom (OVSDB strings hold no U+0000). */
export const NAME_TOKEN = '\u0000';

/** The token of name `name` of `table`. */
export function nameToken(table: string, name: string): string {
  return `${NAME_TOKEN}${table}${NAME_TOKEN}${name}`;
}

/** The name in a token made by {@link nameToken}. */
function tokenName(atom: string): string {
  return atom.slice(atom.indexOf(NAME_TOKEN, 1) + 1);
}

function quote(s: string): string {
  return JSON.stringify(s);
}

function columnsOf(table: TableSchema): string[] {
  return table.columnNames.filter((c) => c !== '_uuid' && c !== '_version');
}

/** Row labels and value texts over one state; `names` gives rows their names (UUID → name). */
export class Labeler {
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly state: State,
    private readonly names: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** The label of row `uuid` of `table`: its name, else its natural key. */
  label(table: string, uuid: string): string {
    const cached = this.cache.get(uuid);
    if (cached !== undefined) return cached;
    const found = this.state.byUuid.get(uuid);
    const schema = this.state.schema.tables[table];
    const text =
      this.names.get(uuid) ??
      seedNameOf(table, uuid) ??
      (found === undefined || schema === undefined
        ? `(no ${table} row ${uuid.slice(0, 8)})`
        : naturalKey(schema, found.row));
    this.cache.set(uuid, text);
    return text;
  }

  /** A reference atom: the label of the row it points to, or the name it still stands for. */
  private ref(atom: string, refTable: string | undefined): string {
    if (atom.startsWith(NAME_TOKEN)) return tokenName(atom);
    const found = this.state.byUuid.get(atom);
    if (found !== undefined) return this.label(found.table, atom);
    const name = refTable === undefined ? undefined : seedNameOf(refTable, atom);
    return name ?? `(no ${refTable ?? 'row'} ${atom.slice(0, 8)})`;
  }

  /** One atom as text. */
  atom(base: BaseType, a: Atom): string {
    if (base.type === 'uuid') return this.ref(String(a), base.refTable);
    if (typeof a === 'string') return quote(a);
    return String(a);
  }

  /** A column's value as text, in the model's shape. */
  value(type: ColumnType, d: Datum | undefined): string {
    if (d === undefined) return '(absent)';
    switch (type.kind) {
      case 'scalar':
        return d.keys.length === 1 ? this.atom(type.key, d.keys[0] as Atom) : '(empty)';
      case 'optional':
        return d.keys.length === 0 ? 'null' : this.atom(type.key, d.keys[0] as Atom);
      case 'set': {
        const items = d.keys.map((k) => this.atom(type.key, k));
        // References read best in the order of their labels, not of their UUIDs.
        if (type.key.type === 'uuid') items.sort();
        return `[${items.join(', ')}]`;
      }
      case 'map': {
        const v = type.value as BaseType;
        const parts = d.keys.map(
          (k, i) =>
            `${type.key.type === 'string' ? quote(String(k)) : this.atom(type.key, k)}: ${this.atom(v, (d.values as Atom[])[i] as Atom)}`,
        );
        return `{${parts.join(', ')}}`;
      }
    }
  }

  /** `{col: value, …}` of the columns of `row` that do not hold their defaults (or of `columns`). */
  summary(table: TableSchema, row: StateRow, columns?: readonly string[], max = 8): string {
    const cols = (columns ?? columnsOf(table)).filter((c) => {
      const d = row.fields[c];
      return columns !== undefined || (d !== undefined && !isDefaultDatum(d, columnType(table, c)));
    });
    const parts = cols
      .slice(0, max)
      .map((c) => `${c}: ${this.value(table.columns[c]?.type as ColumnType, row.fields[c])}`);
    if (cols.length > max) parts.push(`… ${cols.length - max} more`);
    return `{${parts.join(', ')}}`;
  }

  /**
   * Row `row` as plain data for a snapshot: the columns that do not hold
   * their defaults, references as the labels of their rows.
   */
  plain(table: TableSchema, row: StateRow): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const c of columnsOf(table)) {
      const d = row.fields[c];
      const type = columnType(table, c);
      if (d === undefined || isDefaultDatum(d, type)) continue;
      const col = table.columns[c]?.type as ColumnType;
      const atom = (base: BaseType, a: Atom): unknown =>
        base.type === 'uuid' ? this.ref(String(a), base.refTable) : a;
      switch (col.kind) {
        case 'scalar':
        case 'optional':
          out[c] = atom(col.key, d.keys[0] as Atom);
          break;
        case 'set':
          out[c] = d.keys.map((k) => atom(col.key, k));
          if (col.key.type === 'uuid') (out[c] as string[]).sort();
          break;
        case 'map': {
          const m: Record<string, unknown> = {};
          d.keys.forEach((k, i) => {
            m[String(atom(col.key, k))] = atom(
              col.value as BaseType,
              (d.values as Atom[])[i] as Atom,
            );
          });
          out[c] = m;
          break;
        }
      }
    }
    return out;
  }
}

/** Whether column `c` of `table` can name a row: a scalar or optional string, integer or boolean. */
function identifying(table: TableSchema, c: string): boolean {
  const t = table.columns[c]?.type;
  return (
    t !== undefined &&
    (t.kind === 'scalar' || t.kind === 'optional') &&
    t.key.type !== 'uuid' &&
    t.key.type !== 'real'
  );
}

/** Columns that tell rows apart best, first (OVN's usual names); others follow by name. */
const PREFERRED = [
  'name',
  'type',
  'priority',
  'match',
  'direction',
  'action',
  'logical_ip',
  'external_ip',
  'ip_prefix',
  'nexthop',
  'cidr',
  'logical_port',
  'chassis_name',
  'ip',
  'mac',
];

/**
 * A row's natural key: its value in the schema's first index whose columns
 * it fills (`Logical_Switch "sw0"`, `NAT{logical_ip="10.0.0.5", type="snat"}`),
 * else `name` (`Logical_Switch "sw0"`), else up to four identifying columns
 * that do not hold their defaults (`ACL{priority=1001, match="ip4", direction="to-lport", action="allow"}`).
 */
export function naturalKey(table: TableSchema, row: StateRow): string {
  const show = (c: string): string => {
    const d = row.fields[c] as Datum;
    const a = d.keys[0] as Atom;
    return typeof a === 'string' ? quote(a) : String(a);
  };
  const filled = (c: string): boolean => {
    const d = row.fields[c];
    return d !== undefined && d.keys.length === 1 && !isDefaultDatum(d, columnType(table, c));
  };
  for (const index of table.indexes) {
    if (!index.every((c) => identifying(table, c) && filled(c))) continue;
    if (index.length === 1) return `${table.name} ${show(index[0] as string)}`;
    return `${table.name}{${index.map((c) => `${c}=${show(c)}`).join(', ')}}`;
  }
  const cols = columnsOf(table).filter((c) => identifying(table, c) && filled(c));
  if (cols.includes('name') && typeof row.fields['name']?.keys[0] === 'string') {
    return `${table.name} ${show('name')}`;
  }
  if (cols.length === 0) return `${table.name} ${row.uuid.slice(0, 8)}`;
  const rank = (c: string): number => {
    const i = PREFERRED.indexOf(c);
    return i < 0 ? PREFERRED.length : i;
  };
  cols.sort((a, b) => rank(a) - rank(b));
  return `${table.name}{${cols
    .slice(0, 4)
    .map((c) => `${c}=${show(c)}`)
    .join(', ')}}`;
}
