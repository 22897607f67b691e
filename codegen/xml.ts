/**
 * A small reader for well-formed XML documents such as OVN's `ovn-nb.xml`:
 * elements, attributes (single or double quoted), text, CDATA sections, the
 * five predefined entities and numeric character references. Comments,
 * processing instructions and a DOCTYPE without an internal subset are
 * skipped. Anything else is an {@link XmlError} naming the line and column.
 * @module
 */

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

/** Parse `text` and return its root element. */
export function parseXml(text: string): XmlElement {
  return new Reader(text).document();
}

/** The concatenated text of `node` and its descendants. */
export function textContent(node: XmlNode): string {
  if (typeof node === 'string') return node;
  return node.children.map(textContent).join('');
}

class Reader {
  #pos = 0;
  constructor(readonly text: string) {}

  document(): XmlElement {
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

  #element(): XmlElement {
    this.#pos++; // '<'
    const name = this.#name();
    const attrs: Record<string, string> = Object.create(null);
    for (;;) {
      const before = this.#pos;
      this.#skipSpace();
      if (this.text.startsWith('/>', this.#pos)) {
        this.#pos += 2;
        return { name, attrs, children: [] };
      }
      if (this.text.startsWith('>', this.#pos)) {
        this.#pos++;
        break;
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
    const children = this.#content(name);
    return { name, attrs, children };
  }

  #content(parent: string): XmlNode[] {
    const children: XmlNode[] = [];
    let text = '';
    const flush = (): void => {
      if (text !== '') children.push(text);
      text = '';
    };
    for (;;) {
      const lt = this.text.indexOf('<', this.#pos);
      if (lt === -1) this.#fail(`unclosed element <${parent}>`);
      if (lt > this.#pos) text += this.#decode(this.text.slice(this.#pos, lt), this.#pos);
      this.#pos = lt;
      if (this.text.startsWith('</', lt)) {
        this.#pos += 2;
        const name = this.#name();
        if (name !== parent) this.#failAt(lt, `</${name}> closes <${parent}>`);
        this.#skipSpace();
        if (this.text[this.#pos] !== '>') this.#fail(`expected ">" to end </${name}>`);
        this.#pos++;
        flush();
        return children;
      }
      if (this.text.startsWith('<!--', lt)) this.#skipPast('-->', 'comment');
      else if (this.text.startsWith('<![CDATA[', lt)) {
        const end = this.text.indexOf(']]>', lt);
        if (end === -1) this.#fail('unterminated CDATA section');
        text += this.text.slice(lt + 9, end);
        this.#pos = end + 3;
      } else if (this.text.startsWith('<?', lt)) this.#skipPast('?>', 'processing instruction');
      else {
        flush();
        children.push(this.#element());
      }
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
