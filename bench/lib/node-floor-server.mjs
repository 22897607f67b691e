/**
 * W9's Node floor: the least work any Node.js OVSDB server does for one
 * sequential insert with a database file, and nothing else. It frames each
 * message with a byte scan, parses it (`JSON.parse`), writes the record of
 * the insert in ovsdb-server's standalone format (header line, SHA-1, one
 * `pwrite`; `fdatasync` for a `"durable": true` commit) and sends the reply
 * with a fresh UUID. It keeps the rows in a map, to answer the workload's
 * final `select` of `_uuid`. It checks nothing: no schema, no datums, no
 * transaction, no indexes, no `_version`, no history, no monitors.
 *
 * It is a yardstick, not a server: W9 runs it beside ovsdb-server and
 * ovnkit-server to show where Node itself stands on the same workload.
 * Plain JavaScript, imports nothing of ovnkit.
 *
 * Run: `node bench/lib/node-floor-server.mjs <unix socket> <file>`.
 * @module
 */

import { hash, randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, writevSync } from 'node:fs';
import { createServer } from 'node:net';

const [socketPath, file] = process.argv.slice(2);
if (socketPath === undefined || file === undefined) {
  console.error('usage: node-floor-server.mjs <unix socket> <file>');
  process.exit(2);
}
const fd = openSync(file, 'w');
let position = 0;
/** Row UUID → the row as received. */
const rows = new Map();

// A string without anything to escape is only quoted (what ovnkit-server's records do too).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is looked for
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
const stringText = (s) => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));
const atomText = (a) => (typeof a === 'string' ? stringText(a) : JSON.stringify(a));

/** A wire value as record text (the record format is the wire format for these). */
function valueText(v) {
  if (!Array.isArray(v)) return atomText(v);
  if (v[0] === 'map')
    return `["map",[${v[1].map(([k, x]) => `[${atomText(k)},${atomText(x)}]`).join(',')}]]`;
  if (v[0] === 'set') return `["set",[${v[1].map(atomText).join(',')}]]`;
  return JSON.stringify(v);
}

/** Append one record (`OVSDB JSON <length> <sha1>\n<body>\n`). */
function append(body, durable) {
  const bytes = Buffer.from(`${body}\n`);
  const sha1 = hash('sha1', bytes.subarray(0, bytes.length - 1), 'hex');
  const head = Buffer.from(`OVSDB JSON ${bytes.length - 1} ${sha1}\n`);
  position += writevSync(fd, [head, bytes], position);
  if (durable) fdatasyncSync(fd);
}

/** The reply to one request. */
function handle(m) {
  if (m.method === 'list_dbs') return ['OVN_Northbound'];
  if (m.method !== 'transact') return {};
  const ops = m.params.slice(1);
  const results = [];
  const tables = [];
  let durable = false;
  for (const op of ops) {
    if (op.op === 'insert') {
      const uuid = randomUUID();
      rows.set(uuid, op.row);
      const columns = Object.keys(op.row).map(
        (c) => `${JSON.stringify(c)}:${valueText(op.row[c])}`,
      );
      tables.push(`${JSON.stringify(op.table)}:{"${uuid}":{${columns.join(',')}}}`);
      results.push({ uuid: ['uuid', uuid] });
    } else if (op.op === 'select') {
      results.push({ rows: [...rows.keys()].map((u) => ({ _uuid: ['uuid', u] })) });
    } else {
      if (op.op === 'commit' && op.durable === true) durable = true;
      results.push({});
    }
  }
  if (tables.length > 0) append(`{"_date":${Date.now()},${tables.join(',')}}`, durable);
  return results;
}

const server = createServer((socket) => {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts = [];
  socket.on('data', (chunk) => {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) {
        parts.push(chunk.subarray(start, i + 1));
        const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
        parts = [];
        start = i + 1;
        const m = JSON.parse(bytes.toString());
        socket.write(JSON.stringify({ id: m.id, result: handle(m), error: null }));
      }
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  });
  socket.on('error', () => socket.destroy());
});
server.listen(socketPath);
process.on('SIGTERM', () => {
  server.close();
  closeSync(fd);
  process.exit(0);
});
