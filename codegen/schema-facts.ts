/**
 * The documentation the generator derives from the schema itself: a column's
 * type and constraints, immutability, ephemerality and indexes; a table's
 * root status, row limit and indexes; and the documented keys of map columns,
 * all as wrapped Markdown lines for TSDoc.
 * @module
 */

import { type ColumnSchema, describeColumnType, type TableSchema } from 'ovnkit/ovsdb';
import { defaultViolation, hasWideInteger } from './column-types.js';
import { type DocBlock, indentItem, renderBlocks, wrap } from './docs.js';
import type { TablePlan } from './plan.js';
import { DOC_WIDTH } from './tsdoc.js';

/** A name as inline code. */
export function code(name: string): string {
  return `\`${name}\``;
}

function listText(names: readonly string[]): string {
  return names.map(code).join(', ');
}

/** What a column typed `Int64` says about its integers. */
export const INT64_NOTE = '64-bit: a `bigint` beyond ±(2^53−1)';

/** The schema facts about a column, as one paragraph. */
export function columnFacts(table: TableSchema, column: ColumnSchema, plan: TablePlan): string[] {
  const wide = hasWideInteger(column) ? ` (${INT64_NOTE})` : '';
  const facts = [`Type: ${describeColumnType(column)}${wide}.`];
  if (!column.mutable) facts.push(`Immutable: set by an insert, absent from \`${plan.update}\`.`);
  const violation = defaultViolation(column);
  if (violation !== undefined) facts.push(`Required in \`${plan.insert}\`: ${violation}.`);
  if (column.ephemeral) facts.push('Ephemeral: not persisted, so lost when the server restarts.');
  for (const ix of table.indexes) {
    if (!ix.includes(column.name)) continue;
    if (ix.length === 1) facts.push('Unique: no two rows share a value (index).');
    else {
      const others = ix.filter((c) => c !== column.name);
      facts.push(`Unique together with ${listText(others)} (index).`);
    }
  }
  return wrap(facts.join(' '), DOC_WIDTH);
}

/** The documented keys of a map column, as a `Keys:` list. */
export function keyDocs(keys: readonly { key: string; blocks: readonly DocBlock[] }[]): string[] {
  if (keys.length === 0) return [];
  const out = ['Keys:', ''];
  const loose = keys.some((k) => k.blocks.length > 1);
  keys.forEach(({ key, blocks }, i) => {
    if (loose && i > 0) out.push('');
    const [first, ...rest] = blocks;
    const label = code(key);
    const item: DocBlock[] =
      first?.kind === 'paragraph'
        ? [{ kind: 'paragraph', text: `${label}: ${first.text}` }, ...rest]
        : [{ kind: 'paragraph', text: label }, ...blocks];
    out.push(...indentItem('- ', renderBlocks(item, DOC_WIDTH - 2)));
  });
  return out;
}

/** The schema facts about a table, as one paragraph. */
export function tableFacts(table: TableSchema): string[] {
  const facts: string[] = [];
  facts.push(
    table.isRoot
      ? 'A root table: rows stay until deleted.'
      : 'Not a root table: a row that no strong reference points to is deleted when the transaction commits.',
  );
  if (table.maxRows !== Number.POSITIVE_INFINITY) {
    facts.push(`At most ${table.maxRows} ${table.maxRows === 1 ? 'row' : 'rows'}.`);
  }
  if (table.indexes.length > 0) {
    facts.push(`Unique indexes: ${table.indexes.map((ix) => `(${listText(ix)})`).join(', ')}.`);
  }
  return wrap(facts.join(' '), DOC_WIDTH);
}
