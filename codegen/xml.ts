/**
 * A small reader for well-formed XML documents such as OVN's `ovn-nb.xml`:
 * elements, attributes (single or double quoted), text, CDATA sections, the
 * five predefined entities and numeric character references. Comments,
 * processing instructions and a DOCTYPE without an internal subset are
 * skipped. Anything else is an {@link XmlError} naming the line and column.
 * The document is read without recursion, and bounded: at most
 * {@link MAX_XML_LENGTH} characters, elements nested at most
 * {@link MAX_XML_DEPTH} deep.
 * @module
 */

/** The most characters a document may have (OVN's largest, `vswitch.xml`, has 0.3 M). */
export const MAX_XML_LENGTH = 8 * 1024 * 1024;

/** The deepest elements may nest, the root being level 1 (OVN's documents nest 9 deep). */
export const MAX_XML_DEPTH = 256;

/** An XML element: its name, attributes and children in document order. */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlNode[];
}

/** A child of an element: an element or a run of (entity-decoded) text. */
export type XmlNode = XmlElement | string;

/** The document is not well-formed XML (or uses a feature this reader does not support). */
export class XmlError extends Error {
  override name = 'XmlError';
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
  }
}

const PREDEFINED: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

const NAME_RE = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const SPACE_RE = /\s*/y;

/**
 * Parse `text` and return its root element.
 * @throws XmlError when it is not well-formed, is longer than
 *   {@link MAX_XML_LENGTH} or nests deeper than {@link MAX_XML_DEPTH}.
 */
export function parseXml(text: string): XmlElement {
  return new Reader(text).document();
}

/** The concatenated text of `node` and its descendants (recursive: the reader bounds the depth). */
export function textContent(node: XmlNode): string {
  if (typeof node === 'string') return node;
  return node.children.map(textContent).join('');
}

/** An element whose content is being read. */
interface OpenElement {
  readonly name: string;
  readonly attrs: Record<string, string>;
  readonly children: XmlNode[];
  /** Text read since the last child element. */
  text: string;
}

class Reader {
  #pos = 0;
  constructor(readonly text: string) {}

  document(): XmlElement {
    if (this.text.length > MAX_XML_LENGTH) {
      this.#failAt(
        MAX_XML_LENGTH,
        `the document is longer than ${MAX_XML_LENGTH} characters (the limit)`,
      );
    }
    this.#misc();
    if (!this.text.startsWith('<', this.#pos) || this.text.startsWith('</', this.#pos)) {
      this.#fail('expected the root element');
    }
    const root = this.#element();
    this.#misc();
    if (this.#pos < this.text.length) this.#fail('content after the root element');
    return root;
  }

  /** Skip whitespace, comments, processing instructions and a DOCTYPE. */
  #misc(): void {
    for (;;) {
      this.#skipSpace();
      if (this.text.startsWith('<?', this.#pos)) this.#skipPast('?>', 'processing instruction');
      else if (this.text.startsWith('<!--', this.#pos)) this.#skipPast('-->', 'comment');
      else if (this.text.startsWith('<!DOCTYPE', this.#pos)) {
        const close = this.text.indexOf('>', this.#pos);
        const open = this.text.indexOf('[', this.#pos);
        if (open !== -1 && open < close) this.#fail('DOCTYPE internal subsets are not supported');
        this.#skipPast('>', 'DOCTYPE');
      } else return;
    }
  }

  /**
   * The element starting at `<` and everything in it, read with a stack of
   * open elements rather than by recursion.
   */
  #element(): XmlElement {
    const root = this.#startTag();
    if (root.closed) return { name: root.name, attrs: root.attrs, children: [] };
    const open: OpenElement[] = [{ name: root.name, attrs: root.attrs, children: [], text: '' }];
    for (;;) {
      const top = open[open.length - 1]!;
      const lt = this.text.indexOf('<', this.#pos);
      if (lt === -1) this.#fail(`unclosed element <${top.name}>`);
      if (lt > this.#pos) top.text += this.#decode(this.text.slice(this.#pos, lt), this.#pos);
      this.#pos = lt;
      if (this.text.startsWith('</', lt)) {
        this.#pos += 2;
        const name = this.#name();
        if (name !== top.name) this.#failAt(lt, `</${name}> closes <${top.name}>`);
        this.#skipSpace();
        if (this.text[this.#pos] !== '>') this.#fail(`expected ">" to end </${name}>`);
        this.#pos++;
        flushText(top);
        open.pop();
        const element: XmlElement = { name, attrs: top.attrs, children: top.children };
        const parent = open[open.length - 1];
        if (parent === undefined) return element;
        parent.children.push(element);
      } else if (this.text.startsWith('<!--', lt)) this.#skipPast('-->', 'comment');
      else if (this.text.startsWith('<![CDATA[', lt)) {
        const end = this.text.indexOf(']]>', lt);
        if (end === -1) this.#fail('unterminated CDATA section');
        top.text += this.text.slice(lt + 9, end);
        this.#pos = end + 3;
      } else if (this.text.startsWith('<?', lt)) this.#skipPast('?>', 'processing instruction');
      else {
        if (open.length >= MAX_XML_DEPTH) {
          this.#failAt(lt, `elements nest deeper than ${MAX_XML_DEPTH} levels (the limit)`);
        }
        flushText(top);
        const tag = this.#startTag();
        if (tag.closed) top.children.push({ name: tag.name, attrs: tag.attrs, children: [] });
        else open.push({ name: tag.name, attrs: tag.attrs, children: [], text: '' });
      }
    }
  }

  /** The start tag at `<`: its name, its attributes, and whether it is `<…/>`. */
  #startTag(): { name: string; attrs: Record<string, string>; closed: boolean } {
    this.#pos++; // '<'
    const name = this.#name();
    const attrs: Record<string, string> = Object.create(null);
    for (;;) {
      const before = this.#pos;
      this.#skipSpace();
      if (this.text.startsWith('/>', this.#pos)) {
        this.#pos += 2;
        return { name, attrs, closed: true };
      }
      if (this.text.startsWith('>', this.#pos)) {
        this.#pos++;
        return { name, attrs, closed: false };
      }
      if (this.#pos === before) this.#fail(`expected whitespace, ">" or "/>" in <${name}>`);
      const attrStart = this.#pos;
      const attr = this.#name();
      this.#skipSpace();
      if (this.text[this.#pos] !== '=') this.#fail(`expected "=" after attribute ${attr}`);
      this.#pos++;
      this.#skipSpace();
      const quote = this.text[this.#pos];
      if (quote !== '"' && quote !== "'") this.#fail(`expected a quoted value for ${attr}`);
      const end = this.text.indexOf(quote, this.#pos + 1);
      if (end === -1) this.#fail(`unterminated value of attribute ${attr}`);
      const raw = this.text.slice(this.#pos + 1, end);
      if (raw.includes('<')) this.#fail(`"<" in the value of attribute ${attr}`);
      if (Object.hasOwn(attrs, attr)) this.#failAt(attrStart, `duplicate attribute ${attr}`);
      attrs[attr] = this.#decode(raw, this.#pos + 1);
      this.#pos = end + 1;
    }
  }

  #decode(raw: string, offset: number): string {
    if (!raw.includes('&')) return raw;
    return raw.replace(/&([^;&\s]*);?/g, (whole, body: string, at: number) => {
      if (!whole.endsWith(';')) this.#failAt(offset + at, `unterminated entity reference ${whole}`);
      if (body.startsWith('#')) {
        const hex = body[1] === 'x';
        const digits = body.slice(hex ? 2 : 1);
        const ok = hex ? /^[0-9A-Fa-f]+$/.test(digits) : /^[0-9]+$/.test(digits);
        const code = ok ? Number.parseInt(digits, hex ? 16 : 10) : Number.NaN;
        if (!Number.isInteger(code) || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
          this.#failAt(offset + at, `invalid character reference ${whole}`);
        }
        return String.fromCodePoint(code);
      }
      const value = Object.hasOwn(PREDEFINED, body) ? PREDEFINED[body] : undefined;
      if (value === undefined) this.#failAt(offset + at, `unknown entity ${whole}`);
      return value;
    });
  }

  #name(): string {
    NAME_RE.lastIndex = this.#pos;
    const m = NAME_RE.exec(this.text);
    if (m === null) this.#fail('expected a name');
    this.#pos += m[0].length;
    return m[0];
  }

  #skipSpace(): void {
    SPACE_RE.lastIndex = this.#pos;
    SPACE_RE.exec(this.text);
    this.#pos = SPACE_RE.lastIndex;
  }

  #skipPast(end: string, what: string): void {
    const i = this.text.indexOf(end, this.#pos);
    if (i === -1) this.#fail(`unterminated ${what}`);
    this.#pos = i + end.length;
  }

  #fail(reason: string): never {
    this.#failAt(this.#pos, reason);
  }

  #failAt(pos: number, reason: string): never {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < pos && i < this.text.length; i++) {
      if (this.text.charCodeAt(i) === 10) {
        line++;
        lineStart = i + 1;
      }
    }
    throw new XmlError(line, pos - lineStart + 1, reason);
  }
}

/** Move the text read so far into the element's children. */
function flushText(element: OpenElement): void {
  if (element.text !== '') element.children.push(element.text);
  element.text = '';
}
