/**
 * JSON text out, exact for OVSDB's 64-bit integers (text in is
 * `json-text.ts`).
 *
 * `JSON.stringify` throws on a `bigint`, which ovnkit uses for an int64
 * outside ±(2^53−1) (see `values/int64.ts`), so {@link stringifyJson} is
 * `JSON.stringify`, except that a value holding a bigint is written by an
 * exact serializer (a bigint as its decimal digits). That serializer does
 * not recurse: it keeps an explicit stack, so no value can overflow the
 * call stack. V8's `JSON.stringify` recurses but handles several thousand
 * levels (about 4,000 from a shallow stack; {@link stringifyJson} falls
 * back to the iterative serializer when it does not), so it is safe for
 * anything within the parser's nesting limit (`json-text.ts`).
 *
 * Text longer than the longest string is written in pieces
 * ({@link TextPieces}, {@link stringifyJsonPieces}).
 * This module imports nothing from Node.
 * @module
 */

/**
 * The longest string V8 makes on 64-bit platforms: 2^29 − 24 UTF-16 units
 * (about 512 MiB of ASCII). Longer JSON text is written in pieces
 * ({@link TextPieces}).
 */
export const MAX_STRING_UNITS = 2 ** 29 - 24;

/**
 * Text as one string or, when it is long, as the UTF-8 bytes of its pieces,
 * to be written one after the other ({@link TextPieces}).
 */
export type TextInPieces = string | readonly Uint8Array[];

/** Text up to this long (UTF-16 units) is one string; longer text goes into pieces. */
const ONE_STRING_UNITS = 16 * 1024 * 1024;
/** In pieces, small texts are gathered up to this many UTF-16 units before they are encoded. */
const GATHER_UNITS = 64 * 1024;
/** The first arena of a text in pieces (bytes); each next one is twice as large, up to {@link ARENA_MAX}. */
const ARENA_MIN = 16 * 1024 * 1024;
const ARENA_MAX = 128 * 1024 * 1024;

const encoder = new TextEncoder();

/**
 * Text built in pieces, so that it may be longer than the longest string
 * ({@link MAX_STRING_UNITS}). Text up to 16 Mi UTF-16 units is one string;
 * past that, the text is encoded to UTF-8 as it comes, into a few large
 * buffers (16 MiB, then twice as large each, up to 128 MiB): the pieces are
 * the filled parts of those, ready to be written, and outside the
 * JavaScript heap. (Few large buffers rather than many small ones: the
 * engine collects garbage once for every 64 MiB of buffers allocated.)
 *
 * ```ts
 * const out = new TextPieces();
 * out.add('{"rows":');
 * out.json(rows); // in pieces when its text is long
 * out.add('}');
 * write(out.finish()); // a string, or the pieces' bytes in order
 * ```
 */
export class TextPieces {
  private readonly pieces: Uint8Array[] = [];
  /** Text not encoded yet. */
  private current = '';
  private units = 0;
  /** The buffer being filled, where the current piece starts in it, and how far it is filled. */
  private arena: Uint8Array | undefined;
  private pieceStart = 0;
  private at = 0;

  /** The UTF-16 units added so far. */
  get length(): number {
    return this.units;
  }

  /** Append `text` (no lone surrogate at either end: texts may be encoded on their own). */
  add(text: string): void {
    const n = text.length;
    this.units += n;
    const limit = this.arena === undefined ? ONE_STRING_UNITS : GATHER_UNITS;
    if (this.current.length + n <= limit) {
      this.current += text;
      return;
    }
    this.encode(this.current);
    if (n >= GATHER_UNITS) {
      this.encode(text);
      this.current = '';
    } else {
      this.current = text;
    }
  }

  /** Encode `text` into the arena, extending the current piece (into new arenas as they fill up). */
  private encode(text: string): void {
    let rest = text;
    while (rest.length > 0) {
      if (this.arena === undefined || this.arena.length - this.at < 4) this.newArena();
      const { read, written } = encoder.encodeInto(
        rest,
        (this.arena as Uint8Array).subarray(this.at),
      );
      this.at += written;
      if (read === rest.length) return;
      // The arena is full: the rest (from a character boundary) goes into the next one.
      rest = rest.slice(read);
      this.newArena();
    }
  }

  /** Close the current piece and start a new arena, twice as large as the last (up to {@link ARENA_MAX}). */
  private newArena(): void {
    const old = this.arena;
    if (old !== undefined && this.at > this.pieceStart) {
      this.pieces.push(old.subarray(this.pieceStart, this.at));
    }
    this.arena = new Uint8Array(
      old === undefined ? ARENA_MIN : Math.min(ARENA_MAX, 2 * old.length),
    );
    this.pieceStart = 0;
    this.at = 0;
  }

  /**
   * Append the JSON text of `value`, as {@link stringifyJson} writes it
   * (`JSON.stringify`'s text, a bigint as its digits), in pieces when it is
   * long.
   * @throws TypeError for a cyclic value, or a value with no JSON text.
   */
  json(value: unknown): void {
    if (!writeWhole(value, this)) writeExact(value, this);
  }

  /** The text: one string when it is short, else its pieces' bytes in order. */
  finish(): TextInPieces {
    if (this.arena === undefined) return this.current;
    this.encode(this.current);
    this.current = '';
    if (this.at > this.pieceStart) this.pieces.push(this.arena.subarray(this.pieceStart, this.at));
    this.pieceStart = this.at;
    return this.pieces;
  }
}

/** `text` as one string. @throws RangeError when it is longer than one string can be. */
export function joinPieces(text: TextInPieces): string {
  if (typeof text === 'string') return text;
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let units = 0;
  for (const p of text) {
    const part = decoder.decode(p);
    units += part.length;
    if (units > MAX_STRING_UNITS) {
      throw new RangeError(
        `a text of more than ${MAX_STRING_UNITS} UTF-16 units is longer than the longest string`,
      );
    }
    parts.push(part);
  }
  return parts.join('');
}

/** The JSON text of `value` ({@link stringifyJson}), in pieces when it is long. */
export function stringifyJsonPieces(value: unknown): TextInPieces {
  const out = new TextPieces();
  out.json(value);
  return out.finish();
}

/** `prefix`, `body` and `suffix` as one text: one string when `body` is one. */
export function framePieces(prefix: string, body: TextInPieces, suffix: string): TextInPieces {
  if (typeof body === 'string') {
    if (body.length <= MAX_STRING_UNITS - prefix.length - suffix.length) {
      return prefix + body + suffix;
    }
    return [encoder.encode(prefix), encoder.encode(body), encoder.encode(suffix)];
  }
  return [encoder.encode(prefix), ...body, encoder.encode(suffix)];
}

/**
 * `JSON.stringify(value)`, exact for bigints: a value that holds a `bigint`
 * is written by an exact serializer with the same rules as `JSON.stringify`
 * (`toJSON`, members that are `undefined`, functions or symbols left out of
 * objects and `null` in arrays, non-finite numbers as `null`), each bigint
 * as its decimal digits. Values without a bigint take `JSON.stringify`
 * itself.
 * @throws TypeError for a cyclic value, or a value with no JSON text
 *   (`undefined`, a function or a symbol at the top); RangeError for a text
 *   longer than the longest string ({@link stringifyJsonPieces} writes it).
 */
export function stringifyJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    // A bigint, nesting too deep for JSON.stringify's recursion, a text too
    // long for one string (or a cycle, which fails again in the walk).
    if (!(e instanceof TypeError) && !(e instanceof RangeError)) throw e;
    const out = new TextPieces();
    writeExact(value, out);
    return joinPieces(out.finish());
  }
  if (text === undefined) throw new TypeError(`${typeof value} has no JSON text`);
  return text;
}

/**
 * Values estimated below this many UTF-16 units of text are written with one
 * `JSON.stringify` (escapes, which the estimate leaves out, make a text at
 * most six times as long: still shorter than the longest string).
 */
const WHOLE_UNITS = 64 * 1024 * 1024;
/** Runs of members estimated below this are written with one `JSON.stringify` by the walk. */
const RUN_UNITS = GATHER_UNITS;
/** A container with more members than this is estimated from as many of them, evenly spread. */
const SAMPLE = 16;
/** The most values {@link estimate} looks at. */
const ESTIMATE_VISITS = 4096;

/**
 * About how many UTF-16 units of JSON text `v` makes (escapes left out),
 * from a sample: of a container with more than {@link SAMPLE} members, as
 * many of them are looked at and taken as typical. -1 when that takes more
 * than {@link ESTIMATE_VISITS} values (deep or irregular nesting, a cycle).
 * Never exact, so it only chooses how a value is written: a value that
 * turns out too long for one `JSON.stringify` is walked after all.
 */
function estimate(v: unknown, keysOf: (o: object) => string[] = Object.keys): number {
  const values: unknown[] = [v];
  const weights: number[] = [1];
  let units = 0;
  let visits = 0;
  while (values.length > 0) {
    if (++visits > ESTIMATE_VISITS) return -1;
    const x = values.pop();
    const w = weights.pop() as number;
    switch (typeof x) {
      case 'string':
        units += w * (x.length + 2);
        break;
      case 'object': {
        if (x === null) {
          units += w * 4;
          break;
        }
        const keys = Array.isArray(x) ? undefined : keysOf(x);
        const n = keys === undefined ? (x as unknown[]).length : keys.length;
        const step = n > SAMPLE ? n / SAMPLE : 1;
        const cw = w * step;
        units += w * (2 + n);
        for (let f = 0; f < n; f += step) {
          const i = Math.floor(f);
          if (keys === undefined) values.push((x as unknown[])[i]);
          else {
            const k = keys[i] as string;
            units += cw * (k.length + 3);
            values.push((x as Record<string, unknown>)[k]);
          }
          weights.push(cw);
        }
        break;
      }
      default:
        units += w * 8;
    }
  }
  return units;
}

/**
 * Write `value` with one `JSON.stringify` when its text is estimated short
 * enough; false when it is not, or `JSON.stringify` cannot write it (a
 * bigint, nesting too deep, longer than a string after all): then it is to
 * be walked.
 * @throws TypeError for a value with no JSON text.
 */
function writeWhole(value: unknown, out: TextPieces, units = estimate(value)): boolean {
  if (units > WHOLE_UNITS || (units < 0 && typeof value === 'object' && value !== null)) {
    return false;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError) && !(e instanceof RangeError)) throw e;
    return false;
  }
  if (text === undefined) throw new TypeError(`${typeof value} has no JSON text`);
  out.add(text);
  return true;
}

interface OutFrame {
  readonly node: object;
  /** The keys of an object; undefined for an array. */
  readonly keys: string[] | undefined;
  /** Members. */
  readonly count: number;
  next: number;
  wrote: boolean;
  /**
   * How many members a run takes (a large container's members are taken
   * as alike, from its estimate); 0: each member is estimated.
   */
  readonly runLength: number;
  /** Members before this index are written one by one (a run of them failed). */
  oneByOne: number;
}

/** The value JSON.stringify serializes in place of `v` (toJSON, boxed primitives). */
function prepare(v: unknown, key: string): unknown {
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    const toJSON: unknown = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = (toJSON as (k: string) => unknown).call(v, key);
  }
  if (typeof v === 'object' && v !== null) {
    if (v instanceof Number) return Number(v);
    if (v instanceof String) return String(v);
    if (v instanceof Boolean || v instanceof BigInt) return v.valueOf();
  }
  return v;
}

function isOmitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/**
 * A member `JSON.stringify` may write within a run of its container's
 * members: not a bigint, and no `toJSON` (which is given the member's key or
 * index: an array's run is a slice, whose indexes differ).
 */
function runnable(v: unknown): boolean {
  if (typeof v === 'bigint') return false;
  return (
    typeof v !== 'object' || v === null || typeof (v as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/** `JSON.stringify(s)` into `out`, in slices when `s` is long (a surrogate pair is never cut). */
function writeString(s: string, out: TextPieces): void {
  if (s.length <= GATHER_UNITS) {
    out.add(JSON.stringify(s));
    return;
  }
  out.add('"');
  for (let at = 0; at < s.length; ) {
    let end = Math.min(s.length, at + GATHER_UNITS);
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--;
    out.add(JSON.stringify(s.slice(at, end)).slice(1, -1));
    at = end;
  }
  out.add('"');
}

/**
 * The exact serializer behind {@link TextPieces.json}, into `out`: the
 * value's containers are walked (iteratively), and runs of members that
 * are short and plain are written together by `JSON.stringify`.
 * @throws TypeError for a cyclic value, or a value with no JSON text.
 */
function writeExact(value: unknown, out: TextPieces): void {
  const root = prepare(value, '');
  if (isOmitted(root)) throw new TypeError(`${typeof value} has no JSON text`);
  const stack: OutFrame[] = [];
  const open = new Set<object>();
  // The keys of the large objects met (listing a large object's keys is what an estimate costs).
  const keyLists = new Map<object, string[]>();
  const keysOf = (o: object): string[] => {
    let keys = keyLists.get(o);
    if (keys === undefined) {
      keys = Object.keys(o);
      if (keys.length > SAMPLE) keyLists.set(o, keys);
    }
    return keys;
  };

  /** Write `v` (prepared): a scalar, or the opening of a container to walk. */
  const write = (v: unknown): void => {
    switch (typeof v) {
      case 'string':
        writeString(v, out);
        return;
      case 'number':
        out.add(Number.isFinite(v) ? String(v) : 'null');
        return;
      case 'bigint':
        out.add(v.toString());
        return;
      case 'boolean':
        out.add(v ? 'true' : 'false');
        return;
      default: {
        if (v === null) {
          out.add('null');
          return;
        }
        const node = v as object;
        if (open.has(node)) throw new TypeError('Converting circular structure to JSON');
        open.add(node);
        const keys = Array.isArray(node) ? undefined : keysOf(node);
        const count = keys === undefined ? (node as unknown[]).length : keys.length;
        let runLength = 0;
        if (count > SAMPLE) {
          const units = estimate(node, keysOf);
          runLength =
            units < 0 ? 1 : Math.max(1, Math.floor(RUN_UNITS / Math.max(1, units / count)));
        }
        out.add(keys === undefined ? '[' : '{');
        stack.push({ node, keys, count, next: 0, wrote: false, runLength, oneByOne: 0 });
      }
    }
  };

  const member = (top: OutFrame, i: number): unknown =>
    top.keys === undefined
      ? (top.node as unknown[])[i]
      : (top.node as Record<string, unknown>)[top.keys[i] as string];

  /**
   * Write the members of `top` from `top.next` on that make a run (see
   * {@link runnable}; together estimated below {@link RUN_UNITS}) with one
   * `JSON.stringify`; false when the next member is to be written alone. A
   * container of one member that is walked at all has a long member.
   */
  const writeRun = (top: OutFrame): boolean => {
    const start = top.next;
    if (top.count === 1 || start < top.oneByOne) return false;
    let end = start;
    if (top.runLength > 0) {
      const limit = Math.min(top.count, start + top.runLength);
      while (end < limit && runnable(member(top, end))) end++;
    } else {
      let units = 0;
      while (end < top.count) {
        const v = member(top, end);
        if (!runnable(v)) break;
        const size = estimate(v, keysOf);
        if (size < 0 || size > RUN_UNITS || (units + size > RUN_UNITS && end > start)) break;
        units += size;
        end++;
      }
    }
    if (end === start) return false;
    let text: string;
    try {
      if (top.keys === undefined) {
        text = JSON.stringify((top.node as unknown[]).slice(start, end));
      } else {
        // Without a prototype: a dictionary from the start, no hidden class for each new key.
        const run = Object.create(null) as Record<string, unknown>;
        for (let i = start; i < end; i++) {
          const k = top.keys[i] as string;
          run[k] = (top.node as Record<string, unknown>)[k];
        }
        text = JSON.stringify(run);
      }
    } catch (e) {
      if (!(e instanceof TypeError) && !(e instanceof RangeError)) throw e;
      // A bigint deeper inside, nesting too deep, or longer than estimated: one by one.
      top.oneByOne = end;
      return false;
    }
    top.next = end;
    const inner = text.slice(1, -1);
    if (inner.length === 0) return true;
    out.add(top.wrote ? `,${inner}` : inner);
    top.wrote = true;
    return true;
  };

  /** Write member `v` of `top` (its comma or key already written): whole when short, else walked. */
  const writeMember = (v: unknown): void => {
    if (
      typeof v === 'object' &&
      v !== null &&
      runnable(v) &&
      writeWhole(v, out, estimate(v, keysOf))
    ) {
      return;
    }
    write(v);
  };

  write(root);
  for (;;) {
    const top = stack[stack.length - 1];
    if (top === undefined) break;
    if (top.next >= top.count) {
      out.add(top.keys === undefined ? ']' : '}');
      stack.pop();
      open.delete(top.node);
      continue;
    }
    if (writeRun(top)) continue;
    const i = top.next++;
    if (top.keys === undefined) {
      if (top.wrote) out.add(',');
      top.wrote = true;
      const v = prepare(member(top, i), String(i));
      if (isOmitted(v)) out.add('null');
      else if (top.count === 1) write(v);
      else writeMember(v);
    } else {
      const key = top.keys[i] as string;
      const v = prepare(member(top, i), key);
      if (isOmitted(v)) continue;
      out.add(top.wrote ? `,${JSON.stringify(key)}:` : `${JSON.stringify(key)}:`);
      top.wrote = true;
      if (top.count === 1) write(v);
      else writeMember(v);
    }
  }
}
