/**
 * JSON text and number formatting as ovsdb-server produces them, for the parts
 * of a reply that carry serialized JSON or numbers inside strings: the `syntax`
 * member of an error (the offending JSON, compact, object members sorted) and
 * the reals quoted in error details (C's `%.15g`).
 *
 * Reals on the wire are also rounded by ovsdb-server to 15 significant digits;
 * {@link roundReal} reproduces that for values the engine returns.
 * @module
 */

/**
 * Format `x` as C's `printf("%.15g", x)` does: 15 significant digits, trailing
 * zeros removed, exponent form when the exponent is below -4 or at least 15.
 */
export function formatG15(x: number): string {
  if (Number.isNaN(x)) return x < 0 ? '-nan' : 'nan';
  if (!Number.isFinite(x)) return x < 0 ? '-inf' : 'inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const exp = Number(x.toExponential(14).split('e')[1]);
  if (exp < -4 || exp >= 15) {
    const [mant = '', e = '0'] = x.toExponential(14).split('e');
    const m = mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant;
    const en = Number(e);
    const sign = en < 0 ? '-' : '+';
    const digits = String(Math.abs(en)).padStart(2, '0');
    return `${m}e${sign}${digits}`;
  }
  const fixed = x.toFixed(Math.max(0, 14 - exp));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** `x` as ovsdb-server sends it: rounded to 15 significant digits. */
export function roundReal(x: number): number {
  return Number(formatG15(x));
}

/** Serialize a JSON string the way OVS's JSON library escapes it. */
function ovsString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20) out += s[i];
    else if (c === 0x08) out += '\\b';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0d) out += '\\r';
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Serialize `json` as OVS's `json_to_string(json, JSSF_SORT)` does: compact,
 * object members sorted by name, integers in decimal and reals as `%.15g`.
 * JS cannot tell `1.0` from `1` once parsed, so integral numbers print as
 * integers (which is also how `%.15g` prints an integral real).
 */
export function ovsJsonText(json: unknown): string {
  if (json === null || json === undefined) return 'null';
  switch (typeof json) {
    case 'boolean':
      return json ? 'true' : 'false';
    case 'number':
      return Number.isInteger(json) && Math.abs(json) < 1e21 ? String(json) : formatG15(json);
    case 'string':
      return ovsString(json);
    case 'object': {
      if (Array.isArray(json)) return `[${json.map(ovsJsonText).join(',')}]`;
      const obj = json as Record<string, unknown>;
      const keys = Object.keys(obj).sort(byteCompare);
      return `{${keys.map((k) => `${ovsString(k)}:${ovsJsonText(obj[k])}`).join(',')}}`;
    }
    default:
      return 'null';
  }
}
