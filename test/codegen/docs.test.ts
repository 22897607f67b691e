import { describe, expect, it } from 'vitest';
import { type DocBlock, parseDocs, renderBlocks, wrap } from '../../codegen/docs.js';
import { generate } from '../../codegen/index.js';
import {
  MAX_XML_DEPTH,
  MAX_XML_LENGTH,
  parseXml,
  textContent,
  XmlError,
} from '../../codegen/xml.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { readRepo } from './helpers.js';

describe('parseXml', () => {
  it('reads elements, both attribute quotes, entities, CDATA and skips comments', () => {
    const root = parseXml(
      `<?xml version="1.0"?>\n<!-- c --><a x="1 &amp; 2" y='{"k": "v"}'>t &lt;b&gt; &#65;&#x42;<![CDATA[<raw>]]><b/><!-- in --></a>`,
    );
    expect(root.name).toBe('a');
    expect(root.attrs).toEqual({ x: '1 & 2', y: '{"k": "v"}' });
    expect(root.children).toEqual(['t <b> AB<raw>', { name: 'b', attrs: {}, children: [] }]);
    expect(textContent(root)).toBe('t <b> AB<raw>');
  });

  it.each([
    ['<a><b></a>', 1, 7, '</a> closes <b>'],
    ['<a>\n  x &nbsp; y</a>', 2, 5, 'unknown entity &nbsp;'],
    ['<a>\n& b</a>', 2, 1, 'unterminated entity reference &'],
    ['<a x="1" x="2"/>', 1, 10, 'duplicate attribute x'],
    ['<a>', 1, 4, 'unclosed element <a>'],
    ['<a/><b/>', 1, 5, 'content after the root element'],
  ])('rejects %j at line %i, column %i', (text, line, column, reason) => {
    let error: unknown;
    try {
      parseXml(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(XmlError);
    expect(error).toMatchObject({ line, column, reason });
  });

  /** `<a>` nested `depth` deep (the root counting as one), with text innermost. */
  const nested = (depth: number, selfClosing = false): string =>
    selfClosing
      ? `${'<a>'.repeat(depth - 1)}<a/>${'</a>'.repeat(depth - 1)}`
      : `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`;

  /** What `parseXml(text)` throws. */
  const thrown = (text: string): unknown => {
    try {
      parseXml(text);
    } catch (err) {
      return err;
    }
    return undefined;
  };

  it(`reads elements nested ${MAX_XML_DEPTH} deep, and refuses one more level by position`, () => {
    let node = parseXml(nested(MAX_XML_DEPTH));
    let depth = 1;
    while (typeof node.children[0] !== 'string') {
      node = node.children[0]!;
      depth++;
    }
    expect(depth).toBe(MAX_XML_DEPTH);
    expect(node.children).toEqual(['x']);
    for (const selfClosing of [false, true]) {
      const err = thrown(nested(MAX_XML_DEPTH + 1, selfClosing));
      expect(err).toBeInstanceOf(XmlError);
      expect(err).toMatchObject({
        line: 1,
        column: 3 * MAX_XML_DEPTH + 1,
        reason: `elements nest deeper than ${MAX_XML_DEPTH} levels (the limit)`,
      });
    }
  });

  it('refuses 100,000 levels of nesting with the depth limit, not a stack overflow', () => {
    const err = thrown(nested(100_000));
    expect(err).toBeInstanceOf(XmlError);
    expect((err as Error).message).toBe(
      `line 1, column ${3 * MAX_XML_DEPTH + 1}: elements nest deeper than ${MAX_XML_DEPTH} levels (the limit)`,
    );
  });

  it(`refuses a document longer than ${MAX_XML_LENGTH} characters`, () => {
    const atLimit = `<a>${'x'.repeat(MAX_XML_LENGTH - 7)}</a>`;
    expect(atLimit.length).toBe(MAX_XML_LENGTH);
    expect(textContent(parseXml(atLimit))).toHaveLength(MAX_XML_LENGTH - 7);
    const err = thrown(`${atLimit} `);
    expect(err).toBeInstanceOf(XmlError);
    expect((err as XmlError).reason).toBe(
      `the document is longer than ${MAX_XML_LENGTH} characters (the limit)`,
    );
  });

  it('reads all of ovn-nb.xml', () => {
    const root = parseXml(readRepo('schema/ovn-nb.xml'));
    expect(root.name).toBe('database');
    expect(root.attrs['title']).toBe('OVN Northbound Database');
  });
});

describe('parseDocs', () => {
  const xml = `<database name="x">
  <table name="T" title="A table">
    <p>Table <ref column="c"/> prose.</p>
    <group title="G">
      Group prose with <code>code</code>.
      <column name="c">
        <p>Uses <ref table="U" column="d"/>, <ref column="m" key="k"/>,
        <ref db="OVN_Southbound"/> and <var>name</var>; <em>really</em> &lt;b&gt;.</p>
        <ul><li>one</li><li>two <code>2</code></li></ul>
        <pre>
          line 1
            line 2
        </pre>
      </column>
      <column name="m" key="k">The k key.</column>
      <column name="m" key="j" type='{"type": "boolean"}'><p>First.</p><p>Second.</p></column>
    </group>
    <column name="n">
      <dl><dt><code>x</code></dt><dd>Means x.</dd><dt>(empty string)</dt><dd><p>Empty.</p></dd></dl>
    </column>
  </table>
</database>`;
  const docs = parseDocs(xml);
  const t = docs.tables.get('T')!;

  it('keeps the title, the table prose and each group’s prose', () => {
    expect(t.title).toBe('A table');
    expect(renderBlocks(t.blocks, 80)).toEqual([
      'Table `c` prose.',
      '',
      '**G.** Group prose with `code`.',
    ]);
  });

  it('turns refs and code into backticked names, var and em into emphasis, and escapes <', () => {
    const [first] = t.columns.get('c')!;
    expect(first).toEqual({
      kind: 'paragraph',
      text: 'Uses `U.d`, `m:k`, `OVN_Southbound` and *name*; *really* \\<b>.',
    });
  });

  it('renders lists and dedented preformatted text', () => {
    expect(renderBlocks(t.columns.get('c')!.slice(1), 80)).toEqual([
      '- one',
      '- two `2`',
      '',
      '```',
      'line 1',
      '  line 2',
      '```',
    ]);
  });

  it('renders definition lists as `term: definition` items', () => {
    expect(renderBlocks(t.columns.get('n')!, 80)).toEqual([
      '- `x`: Means x.',
      '- (empty string): Empty.',
    ]);
  });

  it('collects map keys in document order', () => {
    const keys = t.keys.get('m')!;
    expect(keys.map((k) => k.key)).toEqual(['k', 'j']);
    expect(keys[1]!.blocks).toEqual<DocBlock[]>([
      { kind: 'paragraph', text: 'First.' },
      { kind: 'paragraph', text: 'Second.' },
    ]);
  });

  it('finds OVN’s documentation of every NB table it describes', () => {
    const nb = parseDocs(readRepo('schema/ovn-nb.xml'));
    expect(nb.tables.size).toBeGreaterThanOrEqual(36);
    const priority = renderBlocks(nb.tables.get('ACL')!.columns.get('priority')!, 80).join('\n');
    expect(priority).toContain("The ACL rule's priority.");
  });
});

describe('docs that match the model’s schema', () => {
  const xml = `<database name="x">
  <table name="T">
    <p>Table prose.</p>
    <group title="New">
      <p>About the new columns only.</p>
      <column name="n1">N1.</column>
      <group title="Newer"><column name="n2">N2.</column></group>
    </group>
    <group title="Old"><p>About a.</p><column name="a">A.</column></group>
    <column name="mode">
      <ul>
        <li><code>inline</code>: In line.</li>
        <li><p><code>vtap</code>: Mirrored.</p></li>
        <li>Not about a value.</li>
        <li><code>value: x</code>: not one word, kept.</li>
      </ul>
      <dl><dt><code>inline</code></dt><dd>In line.</dd><dt><code>vtap</code></dt><dd>Mirrored.</dd></dl>
    </column>
    <column name="limits" key="rate">Rate.</column>
    <column name="limits" key="burst">Burst.</column>
  </table>
</database>`;
  const schema = parseSchema({
    name: 'x',
    version: '1.0.0',
    tables: {
      T: {
        columns: {
          a: { type: 'string' },
          mode: { type: { key: { type: 'string', enum: ['set', ['inline']] } } },
          limits: {
            type: {
              key: { type: 'string', enum: 'rate' },
              value: 'integer',
              min: 0,
              max: 'unlimited',
            },
          },
        },
      },
    },
  });
  const all = parseDocs(xml).tables.get('T')!;
  const own = parseDocs(xml, schema).tables.get('T')!;

  it('leaves out the prose of groups whose every column the schema lacks', () => {
    expect(renderBlocks(all.blocks, 80)).toEqual([
      'Table prose.',
      '',
      '**New.** About the new columns only.',
      '',
      '**Old.** About a.',
    ]);
    expect(renderBlocks(own.blocks, 80)).toEqual(['Table prose.', '', '**Old.** About a.']);
  });

  it('leaves out the list items and definitions of enum values the schema lacks', () => {
    expect(renderBlocks(own.columns.get('mode')!, 80)).toEqual([
      '- `inline`: In line.',
      '- Not about a value.',
      '- `value: x`: not one word, kept.',
      '',
      '- `inline`: In line.',
    ]);
    expect(renderBlocks(all.columns.get('mode')!, 80).join('\n')).toContain('`vtap`: Mirrored.');
  });

  it('leaves out the docs of map keys outside the key enum', () => {
    expect(own.keys.get('limits')!.map((k) => k.key)).toEqual(['rate']);
    expect(all.keys.get('limits')!.map((k) => k.key)).toEqual(['rate', 'burst']);
  });

  /** The generated docs of `file` (`ovn-nb.xml`) for table file `table`. */
  const generated = (version: string, table: string): string =>
    generate({
      schema: readRepo(`test/fixtures/schemas/ovn-nb-${version}.ovsschema`),
      docsXml: readRepo('schema/ovn-nb.xml'),
    }).get(table)!;

  it.each([
    ['7.0.0', 'acl.ts', '`pass`: Pass to the next ACL tier', '7.1.0'],
    ['7.0.0', 'logical-router-port.ts', '**Status.** Additional status', '7.6.0'],
    ['7.6.0', 'logical-router-policy.ts', '`jump`: Start examining rules', '7.11.0'],
    ['7.1.0', 'qos.ts', '`mark`: The value of this action', '7.3.0'],
    ['7.18.0', 'network-function-group.ts', '`vtap`: In this mode, traffic is mirrored', '7.19.0'],
  ])('NB %s %s: no docs of %j, which NB %s has', (version, file, text, newer) => {
    expect(generated(version, file)).not.toContain(text);
    expect(generated(newer, file)).toContain(text);
  });

  it('NB 7.0.0 ACL.action still documents the actions it has', () => {
    const acl = generated('7.0.0', 'acl.ts');
    for (const action of ['allow-stateless', 'allow', 'allow-related', 'drop', 'reject']) {
      expect(acl).toContain(`\`${action}\`: `);
    }
  });
});

describe('wrap', () => {
  it('wraps at the width and keeps code spans whole', () => {
    const doc = parseDocs(
      '<d><table name="T"><column name="c">aaaa <code>b c d</code> eeee</column></table></d>',
    );
    const [block] = doc.tables.get('T')!.columns.get('c')!;
    expect(block?.kind === 'paragraph' && wrap(block.text, 10)).toEqual([
      'aaaa',
      '`b c d`',
      'eeee',
    ]);
  });

  it('never starts a line with @', () => {
    expect(wrap('aaaa @bbb cc', 5)).toEqual(['aaaa @bbb', 'cc']);
  });
});
