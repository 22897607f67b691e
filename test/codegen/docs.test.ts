import { describe, expect, it } from 'vitest';
import { type DocBlock, parseDocs, renderBlocks, wrap } from '../../codegen/docs.js';
import {
  MAX_XML_DEPTH,
  MAX_XML_LENGTH,
  parseXml,
  textContent,
  XmlError,
} from '../../codegen/xml.js';
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
