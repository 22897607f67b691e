/**
 * OVN's schema documentation (`ovn-nb.xml` and its siblings) turned into
 * Markdown text for TSDoc: `<table name>` and `<column name [key]>` elements,
 * possibly nested in `<group>`s, whose content is paragraphs, lists,
 * definition lists and preformatted blocks with inline `<code>`, `<ref>`,
 * `<var>` and emphasis. References and code become backticked names; other
 * markup is dropped; paragraphs are kept and lines wrapped.
 *
 * Read against the model's schema, the docs of what that schema does not
 * have are left out: the prose of a group whose every column it lacks, and
 * in the docs of a column with an enum, the list items and definitions of
 * values outside it (`<li><code>pass</code>: …</li>`, `<dt><code>vtap</code></dt>`),
 * as of a map's keys outside its key enum. (The documentation XML is the
 * newest OVN's; a model of an older schema must not describe what its own
 * types forbid.)
 * @module
 */

import type { DatabaseSchema, TableSchema } from 'ovnkit/ovsdb';
import { parseXml, textContent, type XmlElement, type XmlNode } from './xml.js';

/** A block of documentation text. */
export type DocBlock =
  | { readonly kind: 'paragraph'; readonly text: string }
  | { readonly kind: 'list'; readonly ordered: boolean; readonly items: readonly DocItem[] }
  | { readonly kind: 'code'; readonly lines: readonly string[] };

/** One list item: its blocks (the first is usually a paragraph). */
export type DocItem = readonly DocBlock[];

/** The documentation of one key of a map column (`<column name="options" key="…">`). */
export interface KeyDoc {
  readonly key: string;
  readonly blocks: readonly DocBlock[];
}

/** The documentation of one table. */
export interface TableDoc {
  /** The table's `title` attribute, e.g. `Access Control List (ACL) rule`. */
  readonly title: string | undefined;
  /** The table's own prose, then each group's prose under its title. */
  readonly blocks: readonly DocBlock[];
  /** Prose per column name. */
  readonly columns: ReadonlyMap<string, readonly DocBlock[]>;
  /** Documented keys per map column name, in document order. */
  readonly keys: ReadonlyMap<string, readonly KeyDoc[]>;
}

/** The documentation of a database, by table name. */
export interface DatabaseDocs {
  readonly tables: ReadonlyMap<string, TableDoc>;
}

const BLOCK_ELEMENTS = new Set([
  'p',
  'ul',
  'ol',
  'dl',
  'pre',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'div',
  'blockquote',
]);

/**
 * Read a schema documentation XML document; with `schema` (the model's),
 * leave out the docs of groups, enum values and map keys it does not have
 * (see the module documentation).
 * @throws XmlError when the text is not well-formed XML.
 */
export function parseDocs(xml: string, schema?: DatabaseSchema): DatabaseDocs {
  const root = parseXml(xml);
  const tables = new Map<string, TableDoc>();
  for (const child of root.children) {
    if (typeof child === 'string' || child.name !== 'table') continue;
    const name = child.attrs['name'];
    if (name === undefined) continue;
    tables.set(name, readTable(child, schema?.tables[name]));
  }
  return { tables };
}

/** Which list items to keep: those whose term (a leading code span) passes. */
type Keep = (term: string) => boolean;

const KEEP_ALL: Keep = () => true;

/** The terms a column's docs may describe, by the schema: its (key) enum's values, or any. */
function enumTerms(schema: TableSchema | undefined, column: string): Keep {
  const values = schema?.columns[column]?.type.key.enum;
  if (values === undefined) return KEEP_ALL;
  const allowed = new Set(values.map((v) => String(v)));
  return (term) => allowed.has(term);
}

/** The columns named in `element` and its groups. */
function columnsIn(element: XmlElement): string[] {
  const out: string[] = [];
  for (const child of element.children) {
    if (typeof child === 'string') continue;
    if (child.name === 'column' && child.attrs['name'] !== undefined) out.push(child.attrs['name']);
    else if (child.name === 'group') out.push(...columnsIn(child));
  }
  return out;
}

function readTable(table: XmlElement, schema: TableSchema | undefined): TableDoc {
  const columns = new Map<string, DocBlock[]>();
  const keys = new Map<string, KeyDoc[]>();
  const blocks: DocBlock[] = [...toBlocks(proseOf(table))];
  // Without the schema's table (or without a schema), every group is described.
  const has = (column: string): boolean => schema === undefined || column in schema.columns;

  const visit = (container: XmlElement): void => {
    for (const child of container.children) {
      if (typeof child === 'string') continue;
      if (child.name === 'group') {
        const named = columnsIn(child);
        // A group of columns the schema lacks describes none of the model's.
        const prose = named.length > 0 && !named.some(has) ? [] : toBlocks(proseOf(child));
        const title = child.attrs['title'];
        if (prose.length > 0) {
          const [first, ...rest] = prose;
          if (title !== undefined && first?.kind === 'paragraph') {
            blocks.push({ kind: 'paragraph', text: `**${title}.** ${first.text}` }, ...rest);
          } else {
            if (title !== undefined) blocks.push({ kind: 'paragraph', text: `**${title}.**` });
            blocks.push(...prose);
          }
        }
        visit(child);
      } else if (child.name === 'column') {
        const name = child.attrs['name'];
        if (name === undefined) continue;
        const keep = enumTerms(schema, name);
        const content = toBlocks(child.children, keep);
        const key = child.attrs['key'];
        if (key !== undefined) {
          if (!keep(key)) continue;
          const list = keys.get(name) ?? [];
          list.push({ key, blocks: content });
          keys.set(name, list);
        } else {
          columns.set(name, [...(columns.get(name) ?? []), ...content]);
        }
      }
    }
  };
  visit(table);
  return { title: table.attrs['title'], blocks, columns, keys };
}

/** The children of a table or group that are neither columns nor groups. */
function proseOf(element: XmlElement): XmlNode[] {
  return element.children.filter(
    (c) => typeof c === 'string' || (c.name !== 'column' && c.name !== 'group'),
  );
}

/**
 * Convert mixed content into blocks: loose inline runs become paragraphs.
 * List items and definitions whose term `keep` refuses are left out.
 */
function toBlocks(nodes: readonly XmlNode[], keep: Keep = KEEP_ALL): DocBlock[] {
  const blocks: DocBlock[] = [];
  let inline: XmlNode[] = [];
  const flush = (): void => {
    const text = inlineText(inline);
    if (text !== '') blocks.push({ kind: 'paragraph', text });
    inline = [];
  };
  for (const node of nodes) {
    if (typeof node !== 'string' && BLOCK_ELEMENTS.has(node.name)) {
      flush();
      blocks.push(...blockOf(node, keep));
    } else {
      inline.push(node);
    }
  }
  flush();
  return blocks;
}

/**
 * The term an item describes: the text of the code span it starts with, when
 * that is one word (as an enum value is; not `value: bool`).
 */
function termOf(nodes: readonly XmlNode[]): string | undefined {
  const first = nodes.find((n) => typeof n !== 'string' || n.trim() !== '');
  if (first === undefined || typeof first === 'string') return undefined;
  if (first.name === 'code') {
    const term = textContent(first).trim();
    return /\s/.test(term) ? undefined : term;
  }
  // `<li><p><code>x</code>: …</p></li>`
  return first.name === 'p' ? termOf(first.children) : undefined;
}

function kept(keep: Keep, nodes: readonly XmlNode[]): boolean {
  const term = termOf(nodes);
  return term === undefined || keep(term);
}

function blockOf(el: XmlElement, keep: Keep): DocBlock[] {
  switch (el.name) {
    case 'p':
    case 'div':
    case 'blockquote':
      return toBlocks(el.children, keep);
    case 'ul':
    case 'ol': {
      const items = el.children
        .filter((c): c is XmlElement => typeof c !== 'string' && c.name === 'li')
        .filter((li) => kept(keep, li.children))
        .map((li) => toBlocks(li.children, keep));
      return items.length === 0 ? [] : [{ kind: 'list', ordered: el.name === 'ol', items }];
    }
    case 'dl': {
      const items = definitionItems(el, keep);
      return items.length === 0 ? [] : [{ kind: 'list', ordered: false, items }];
    }
    case 'pre':
      return [{ kind: 'code', lines: dedent(textContent(el)) }];
    default: {
      const text = inlineText(el.children);
      return text === '' ? [] : [{ kind: 'paragraph', text: `**${text}**` }];
    }
  }
}

/**
 * `<dt>term</dt><dd>definition</dd>` pairs as list items `term: definition`;
 * a definition whose terms `keep` all refuses is left out.
 */
function definitionItems(dl: XmlElement, keep: Keep): DocItem[] {
  const items: DocItem[] = [];
  let terms: string[] = [];
  let refused = 0;
  for (const child of dl.children) {
    if (typeof child === 'string') continue;
    if (child.name === 'dt') {
      if (kept(keep, child.children)) terms.push(inlineText(child.children));
      else refused++;
    } else if (child.name === 'dd') {
      const label = terms.join(', ');
      const skip = terms.length === 0 && refused > 0;
      terms = [];
      refused = 0;
      if (skip) continue;
      const body = toBlocks(child.children, keep);
      const [first, ...rest] = body;
      if (label === '') items.push(body);
      else if (first?.kind === 'paragraph') {
        items.push([{ kind: 'paragraph', text: `${label}: ${first.text}` }, ...rest]);
      } else items.push([{ kind: 'paragraph', text: `${label}:` }, ...body]);
    }
  }
  if (terms.length > 0) items.push([{ kind: 'paragraph', text: terms.join(', ') }]);
  return items;
}

/** Inline markup as Markdown on one line, whitespace collapsed. */
function inlineText(nodes: readonly XmlNode[]): string {
  return nodes.map(inlineOf).join('').replace(/\s+/g, ' ').trim();
}

function inlineOf(node: XmlNode): string {
  if (typeof node === 'string') return escapeText(node);
  switch (node.name) {
    case 'code':
    case 'tt':
    case 'option':
      return codeSpan(textContent(node));
    case 'var':
      return emphasis(inlineText(node.children), '*');
    case 'ref':
      return codeSpan(refText(node));
    case 'em':
    case 'i':
    case 'dfn':
      return emphasis(inlineText(node.children), '*');
    case 'b':
    case 'strong':
      return emphasis(inlineText(node.children), '**');
    default:
      return node.children.map(inlineOf).join('');
  }
}

/** `<ref>` as the name it points at: `column`, `Table`, `Table.column`, `column:key`. */
function refText(ref: XmlElement): string {
  const own = textContent(ref).trim();
  if (own !== '') return own;
  const { table, column, key, db } = {
    table: ref.attrs['table'],
    column: ref.attrs['column'],
    key: ref.attrs['key'],
    db: ref.attrs['db'],
  };
  let text = column ?? '';
  if (key !== undefined) text = text === '' ? key : `${text}:${key}`;
  if (table !== undefined) text = text === '' ? table : `${table}.${text}`;
  if (text === '' && db !== undefined) text = db;
  return text;
}

function emphasis(text: string, mark: string): string {
  // Keep surrounding spaces outside the markers, where Markdown needs them.
  const m = /^(\s*)(.*?)(\s*)$/s.exec(text);
  const [lead, body, trail] = [m?.[1] ?? '', m?.[2] ?? '', m?.[3] ?? ''];
  return body === '' ? text : `${lead}${mark}${body}${mark}${trail}`;
}

/** A Markdown code span around `text`, with a fence longer than any backtick run inside. */
function codeSpan(text: string): string {
  const body = text.replace(/\s+/g, ' ').trim();
  if (body === '') return '';
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  // A code span's spaces must not become line breaks: mark them as unbreakable.
  return `${fence}${pad}${body}${pad}${fence}`.replaceAll(' ', NBSP_MARK);
}

/** Plain text that Markdown would read as markup: escape `<` (HTML) and backticks. */
function escapeText(text: string): string {
  return text.replace(/[<`]/g, (c) => `\\${c}`);
}

/** Placeholder for a space that wrapping must not break at; restored on output. */
const NBSP_MARK = '\u0000';

function dedent(text: string): string[] {
  const lines = text.replace(/\t/g, '        ').split('\n');
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  const cut = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((l) => l.slice(cut).trimEnd());
}

/**
 * Render blocks as Markdown lines no wider than `width` where words allow:
 * paragraphs wrapped, lists as `-`/`1.` items with indented continuations,
 * preformatted text fenced. Blocks are separated by blank lines.
 */
export function renderBlocks(blocks: readonly DocBlock[], width: number): string[] {
  const out: string[] = [];
  for (const block of blocks) {
    if (out.length > 0) out.push('');
    out.push(...renderBlock(block, width));
  }
  return out;
}

function renderBlock(block: DocBlock, width: number): string[] {
  switch (block.kind) {
    case 'paragraph':
      return wrap(block.text, width);
    case 'code':
      return ['```', ...block.lines, '```'];
    case 'list': {
      const loose = block.items.some((item) => item.length > 1);
      const out: string[] = [];
      block.items.forEach((item, i) => {
        if (loose && i > 0) out.push('');
        const marker = block.ordered ? `${i + 1}. ` : '- ';
        out.push(...indentItem(marker, renderBlocks(item, width - marker.length)));
      });
      return out;
    }
  }
}

/** Prefix the first line with `marker` and indent the rest to line up. */
export function indentItem(marker: string, lines: readonly string[]): string[] {
  const pad = ' '.repeat(marker.length);
  return lines.map((line, i) => {
    if (i === 0) return marker + line;
    return line === '' ? '' : pad + line;
  });
}

/** Greedy word wrap; code spans stay whole; a line never starts with `@` (a TSDoc tag). */
export function wrap(text: string, width: number): string[] {
  const words = text.split(' ').filter((w) => w !== '');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width || word.startsWith('@')) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => l.replaceAll(NBSP_MARK, ' '));
}
