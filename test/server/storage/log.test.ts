/**
 * The log format (src/server/storage/log.ts) and opening a damaged file
 * (db-file.ts): records as ovsdb-server writes them; a torn or corrupt last
 * record is truncated with a warning and the records before it kept; damage
 * before the end is an error naming the file and offset; hostile lengths
 * and headers are refused without allocating or crashing.
 */

import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import {
  composeRecord,
  DbFileError,
  DbStorage,
  scanLog,
  schemaToJson,
} from '../../../src/server/core-index.js';
import { composedSha1, RecordBuffer, recordParts } from '../../../src/server/storage/log.js';

const SCHEMA = parseSchema({
  name: 'L',
  version: '1.0.0',
  tables: { T: { columns: { n: { type: 'integer' }, s: { type: 'string' } }, isRoot: true } },
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-log-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let fileNo = 0;
function path(): string {
  return join(dir, `f${fileNo++}.db`);
}

function uuid(i: number): string {
  return `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

/** A file of the schema record and `n` transaction records (row i: n=i), and the record boundaries. */
function makeFile(n: number): { bytes: Buffer; starts: number[] } {
  const parts = [composeRecord(JSON.stringify(schemaToJson(SCHEMA)))];
  for (let i = 0; i < n; i++) {
    parts.push(
      composeRecord(JSON.stringify({ _date: 1, T: { [uuid(i)]: { n: i, s: 'x'.repeat(i) } } })),
    );
  }
  const starts: number[] = [];
  let at = 0;
  for (const p of parts) {
    starts.push(at);
    at += p.length;
  }
  return { bytes: Buffer.concat(parts), starts };
}

interface Opened {
  rows: number[];
  warnings: string[];
  size: number;
}

/** Every record read a few bytes at a time, as records of more than 64 MiB are read. */
const CHUNKED = { streamRecordBytes: 0, streamChunkBytes: 7 };

function open(file: string, scan?: typeof CHUNKED): Opened {
  const warnings: string[] = [];
  const st = DbStorage.open(file, {
    compaction: false,
    scan,
    log: (_m, level, text) => {
      if (level === 'WARN') warnings.push(text);
    },
  });
  const rows = [...(st.db.tables.get('T')?.rows.values() ?? [])]
    .map((r) => r.fields.n?.keys[0] as number)
    .sort((a, b) => a - b);
  const size = st.size;
  st.close();
  return { rows, warnings, size };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

describe('records', () => {
  it('are "OVSDB JSON <length> <sha1>" and the JSON line, as ovsdb-server writes them', () => {
    const r = composeRecord('{"a":"é\\n"}');
    const text = r.toString('utf8');
    const [header, body] = [
      text.slice(0, text.indexOf('\n') + 1),
      text.slice(text.indexOf('\n') + 1),
    ];
    const bodyBytes = Buffer.from(body, 'utf8');
    expect(body).toBe('{"a":"é\\n"}\n');
    expect(header).toBe(
      `OVSDB JSON ${bodyBytes.length} ${createHash('sha1').update(bodyBytes).digest('hex')}\n`,
    );
    // The length counts bytes (é is two), not characters.
    expect(bodyBytes.length).toBe(body.length + 1);
  });

  it('scan reads every record and reports where each starts', () => {
    const { bytes, starts } = makeFile(3);
    const file = path();
    writeFileSync(file, bytes);
    const fd = openSync(file, 'r');
    const seen: number[] = [];
    const scan = scanLog(fd, file, 'JSON', (r) => seen.push(r.offset));
    closeSync(fd);
    expect(seen).toEqual(starts);
    expect(scan).toMatchObject({ end: bytes.length, size: bytes.length, records: 4 });
    expect(scan.torn).toBeUndefined();
  });
});

describe('a damaged last record', () => {
  it('a file cut anywhere keeps exactly the whole records before the cut', () => {
    const { bytes, starts } = makeFile(4);
    fc.assert(
      fc.property(
        fc.integer({ min: starts[1] as number, max: bytes.length }),
        fc.boolean(),
        (cut, chunked) => {
          const file = path();
          writeFileSync(file, bytes.subarray(0, cut));
          const whole = starts.filter(
            (_s, i) => i > 0 && (starts[i + 1] ?? bytes.length) <= cut,
          ).length;
          const o = open(file, chunked ? CHUNKED : undefined);
          expect(o.rows).toEqual(range(whole));
          const end = starts[whole + 1] ?? bytes.length;
          expect(o.size).toBe(end);
          // The torn tail is truncated away on disk, with a warning naming the file.
          expect(readFileSync(file).length).toBe(end);
          if (cut === end) expect(o.warnings).toEqual([]);
          else expect(o.warnings[0]).toContain(`${file}: `);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('a flipped byte in the last record, or zeros after it, drops only that record', () => {
    const { bytes, starts } = makeFile(3);
    const last = starts[3] as number;
    // The header's SHA-1 digits: ovsdb-server reads them in either case, so a
    // flip of a letter's case there leaves the record whole.
    const digest = last + bytes.subarray(last).indexOf('\n') - 40;
    fc.assert(
      fc.property(
        fc.integer({ min: last, max: bytes.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        (at, x) => {
          const damaged = Buffer.from(bytes);
          damaged[at] = (damaged[at] as number) ^ x;
          const file = path();
          writeFileSync(file, damaged);
          const o = open(file);
          const sameDigit =
            at >= digest &&
            at < digest + 40 &&
            /^[A-F]$/.test(String.fromCharCode(damaged[at] as number)) &&
            String.fromCharCode(damaged[at] as number).toLowerCase() ===
              String.fromCharCode(bytes[at] as number);
          if (sameDigit) {
            expect(o.rows).toEqual([0, 1, 2]);
            expect(o.warnings).toEqual([]);
            return;
          }
          expect(o.rows).toEqual([0, 1]);
          expect(o.warnings).toHaveLength(1);
          expect(o.warnings[0]).toMatch(/truncating the file to the 3 good records/);
        },
      ),
      { numRuns: 60 },
    );
    // The counterexample that found it: 'c' of the digest made 'C'.
    const upper = Buffer.from(bytes);
    const c = upper.indexOf('c', digest);
    expect(c).toBeLessThan(digest + 40);
    upper[c] = 0x43;
    const file = path();
    writeFileSync(file, upper);
    expect(open(file)).toMatchObject({ rows: [0, 1, 2], warnings: [] });
    const zeros = path();
    writeFileSync(zeros, Buffer.concat([bytes, Buffer.alloc(4096)]));
    expect(open(zeros).rows).toEqual([0, 1, 2]);
    expect(readFileSync(zeros).length).toBe(bytes.length);
  });

  it('a header that declares a huge length at the end is a torn record, not an allocation', () => {
    const { bytes } = makeFile(1);
    const file = path();
    writeFileSync(
      file,
      Buffer.concat([bytes, Buffer.from(`OVSDB JSON 999999999999999 ${'0'.repeat(40)}\n{"T":`)]),
    );
    expect(open(file).rows).toEqual([0]);
    // Checked against the file before a large record is read in chunks too.
    writeFileSync(
      file,
      Buffer.concat([bytes, Buffer.from(`OVSDB JSON 99999999 ${'0'.repeat(40)}\n{"T":`)]),
    );
    expect(open(file, CHUNKED).rows).toEqual([0]);
  });
});

describe('damage before the end', () => {
  it('a flipped byte in an earlier record is an error naming the file and that record', () => {
    const { bytes, starts } = makeFile(3);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (k, pick, x) => {
          const start = starts[k] as number;
          const end = starts[k + 1] as number;
          const at = start + (pick % (end - start));
          // The hash in a header is read in either case: a hex letter of it
          // with its case flipped is no damage.
          const headerEnd = bytes.indexOf(0x0a, start);
          const c = bytes[at] as number;
          const inHash = at >= headerEnd - 40 && at < headerEnd;
          fc.pre(!(x === 0x20 && inHash && /[a-fA-F]/.test(String.fromCharCode(c))));
          const damaged = Buffer.from(bytes);
          damaged[at] = c ^ x;
          const file = path();
          writeFileSync(file, damaged);
          let error: unknown;
          try {
            open(file);
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(DbFileError);
          const e = error as DbFileError;
          expect(e.path).toBe(file);
          // A flipped LF can merge records; the damage is then reported at or before them.
          expect(e.offset).toBeLessThanOrEqual(start);
          expect(e.message).toContain(`${file}: record at offset ${e.offset}: `);
          // Nothing was truncated.
          expect(readFileSync(file).equals(damaged)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    // The LF that ends an earlier record, damaged: the record after it still counts.
    const lf = Buffer.from(bytes);
    lf[(starts[2] as number) - 1] = 0x0b;
    const file = path();
    writeFileSync(file, lf);
    expect(() => open(file)).toThrow(/record at offset \d+: .*more records follow/);
  });

  it('a cut last record that holds header-like text is still the last one', () => {
    const { bytes } = makeFile(1);
    const text = JSON.stringify({
      T: { [uuid(7)]: { n: 7, s: `OVSDB JSON 12 ${'0'.repeat(40)} more` } },
    });
    const last = composeRecord(text);
    const file = path();
    writeFileSync(file, Buffer.concat([bytes, last.subarray(0, last.length - 3)]));
    expect(open(file).rows).toEqual([0]);
  });

  it('refuses a huge length before the end, a record that does not replay, and other files', () => {
    const { bytes, starts } = makeFile(2);
    const huge = Buffer.from(bytes);
    const at = starts[1] as number;
    const header = bytes.toString('latin1', at, bytes.indexOf(0x0a, at));
    const bad = header.replace(/JSON \d+/, 'JSON 999999999999999');
    const file = path();
    writeFileSync(
      file,
      Buffer.concat([
        huge.subarray(0, at),
        Buffer.from(bad, 'latin1'),
        huge.subarray(at + header.length),
      ]),
    );
    expect(() => open(file)).toThrow(
      /record at offset \d+: record of 999999999999999 bytes cut short.*more records follow/,
    );

    const replay = path();
    writeFileSync(
      replay,
      Buffer.concat([
        makeFile(0).bytes,
        composeRecord(JSON.stringify({ T: { [uuid(9)]: null } })),
        composeRecord(JSON.stringify({ T: { [uuid(1)]: { n: 1 } } })),
      ]),
    );
    expect(() => open(replay)).toThrow(/deletes a row that does not exist/);
    const unknown = path();
    writeFileSync(unknown, Buffer.concat([makeFile(0).bytes, composeRecord('{"Nope":{}}')]));
    expect(() => open(unknown)).toThrow(/no table named Nope/);

    const cluster = path();
    writeFileSync(cluster, composeRecord('{"server_id":"x"}', 'CLUSTER'));
    expect(() => open(cluster)).toThrow(/a clustered database/);
    const empty = path();
    writeFileSync(empty, '');
    expect(() => open(empty)).toThrow(/empty file/);
    const text = path();
    writeFileSync(text, 'hello\nworld\n');
    expect(() => open(text)).toThrow(DbFileError);
    expect(() => open(join(dir, 'missing.db'))).toThrow(
      /cannot open: no such file or directory \(ENOENT\)/,
    );
  });

  it('a last record whose hash holds but whose JSON does not parse is an error, never truncated', () => {
    // Read whole, or in chunks as a record over 64 MiB is.
    for (const scan of [undefined, CHUNKED]) {
      for (const body of [
        '{"T":',
        '[1]',
        '{}{}',
        '{"T":{}} x',
        '{"T":{"x":' + '['.repeat(5000) + ']'.repeat(5000) + '}}',
      ]) {
        const file = path();
        const bytes = Buffer.concat([makeFile(1).bytes, composeRecord(body)]);
        writeFileSync(file, bytes);
        expect(() => open(file, scan)).toThrow(
          /record at offset \d+: \d+ bytes are not (valid JSON|a JSON object)/,
        );
        expect(readFileSync(file).length).toBe(bytes.length);
      }
    }
  });

  it('a last record that is whole but does not replay is an error, never truncated', () => {
    const file = path();
    const bytes = Buffer.concat([
      makeFile(1).bytes,
      composeRecord(JSON.stringify({ T: { [uuid(0)]: { n: 'x' } } })),
    ]);
    writeFileSync(file, bytes);
    expect(() => open(file)).toThrow(/column n: syntax error: expected integer/);
    expect(readFileSync(file).length).toBe(bytes.length);
  });

  it('removes a stale <file>.tmp of a compaction cut short', () => {
    const file = path();
    writeFileSync(file, makeFile(1).bytes);
    writeFileSync(`${file}.tmp`, 'OVSDB JSON 1');
    expect(open(file).rows).toEqual([0]);
    expect(() => readFileSync(`${file}.tmp`)).toThrow(/ENOENT/);
    truncateSync(file, 10);
    expect(() => open(file)).toThrow(/the schema record is damaged/);
  });
});

describe('records read in chunks (as records of more than 64 MiB are)', () => {
  it('give the same rows', () => {
    const { bytes } = makeFile(5);
    const file = path();
    writeFileSync(file, bytes);
    expect(open(file, CHUNKED).rows).toEqual(range(5));
  });

  it('name the file and offset of a damaged record before the end', () => {
    const { bytes, starts } = makeFile(3);
    const damaged = Buffer.from(bytes);
    const at = (starts[2] as number) + bytes.subarray(starts[2] as number).indexOf('"s"');
    damaged[at] = 0x7b;
    const file = path();
    writeFileSync(file, damaged);
    expect(() => open(file, CHUNKED)).toThrow(
      new RegExp(`${file}: record at offset ${starts[2]}: .*SHA-1 hash.*more records follow`),
    );
    expect(readFileSync(file).equals(damaged)).toBe(true);
  });

  it('read the records written in pieces', () => {
    // A record longer than one string is written as its pieces' bytes: the same record.
    const text = JSON.stringify({ _date: 1, T: { [uuid(3)]: { n: 3, s: 'é'.repeat(9) } } });
    const enc = new TextEncoder();
    const parts = recordParts([enc.encode(text.slice(0, 20)), enc.encode(text.slice(20))]);
    const whole = composeRecord(text);
    expect(Buffer.concat(parts.buffers).equals(whole)).toBe(true);
    const file = path();
    writeFileSync(file, Buffer.concat([makeFile(0).bytes, ...parts.buffers]));
    expect(open(file, CHUNKED).rows).toEqual([3]);
  });

  it('queue between the records around them, in order', () => {
    const enc = new TextEncoder();
    const texts = ['{"a":1}', '{"b":"é"}', `{"c":"${'x'.repeat(100_000)}"}`, '{"d":4}'];
    const queue = new RecordBuffer();
    const sha1s = [
      queue.add(texts[0] as string),
      queue.add([enc.encode('{"b":'), enc.encode('"é"}')]),
      queue.add(texts[2] as string),
      queue.add([enc.encode(texts[3] as string)]),
    ];
    const expected = texts.map((t) => composeRecord(t));
    expect(Buffer.concat(queue.bytes()).equals(Buffer.concat(expected))).toBe(true);
    expect(sha1s).toEqual(expected.map((r) => composedSha1(r)));
    expect(queue.count).toBe(4);
    queue.clear();
    queue.add(texts[0] as string);
    expect(Buffer.concat(queue.bytes()).equals(expected[0] as Buffer)).toBe(true);
  });
});
