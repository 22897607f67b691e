/**
 * JSON a client sent that the server sends back as is (request ids, `echo`
 * params, monitor ids), in the form ovsdb-server sends it back.
 *
 * ovsdb-server parses every number into an integer (an integral value
 * within int64, `1.0` and `1e3` included) or a real, and writes reals with
 * `%.15g`. So a real comes back rounded to 15 significant digits, and a
 * token beyond int64 (`9223372036854775808`, a real to it) as
 * `9.22337203685478e+18`. Integers, strings and the rest come back as they
 * were.
 * @module
 */

import { toInt64 } from '../../ovsdb/values/int64.js';
import { roundReal } from '../../ovsdb/values/ovs-text.js';
import { setOwn } from '../../ovsdb/wire/json.js';

/** 2^63, the first magnitude beyond int64. */
const TWO_63 = 2 ** 63;

function echoNumber(x: number): number | bigint {
  if (Number.isSafeInteger(x)) return x;
  if (Number.isInteger(x) && Math.abs(x) < TWO_63) return toInt64(BigInt(x)) as bigint;
  return Number.isFinite(x) ? roundReal(x) : x;
}

/** True when `v` holds no number that {@link echoJson} would change (the usual case: ids, `[]`). */
function isPlain(v: unknown): boolean {
  if (typeof v === 'number') return Number.isSafeInteger(v);
  return typeof v !== 'object' || v === null || (Array.isArray(v) && v.length === 0);
}

/**
 * `v` as ovsdb-server would send it back: numbers as it reads and writes
 * them, everything else unchanged (arrays and objects are copied, `v` is
 * left as it is).
 * Iterative, so any nesting the framer accepted is safe.
 */
export function echoJson(v: unknown): unknown {
  if (isPlain(v)) return v;
  if (typeof v === 'number') return echoNumber(v);
  const root: { v: unknown } = { v };
  const stack: [Record<string, unknown> | unknown[], string | number][] = [[root, 'v']];
  while (stack.length > 0) {
    const [parent, key] = stack.pop() as [Record<string, unknown>, string];
    const x = parent[key];
    let y: unknown;
    if (typeof x === 'number') {
      y = echoNumber(x);
    } else if (Array.isArray(x)) {
      const copy = [...x];
      for (let i = 0; i < copy.length; i++) if (!isPlain(copy[i])) stack.push([copy, i]);
      y = copy;
    } else {
      // An object (spread keeps a `__proto__` member as an own property).
      const copy = { ...(x as Record<string, unknown>) };
      for (const k of Object.keys(copy)) if (!isPlain(copy[k])) stack.push([copy, k]);
      y = copy;
    }
    if (Array.isArray(parent)) parent[key as unknown as number] = y;
    else setOwn(parent, key, y);
  }
  return root.v;
}
