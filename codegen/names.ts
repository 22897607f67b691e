/**
 * Identifier and file-name rules of the code generator: PascalCase type names
 * from OVSDB table and column names, kebab-case file names, the default model
 * name, and a registry that keeps every exported name of one database unique
 * and clear of well-known globals.
 * @module
 */

/**
 * PascalCase of an OVSDB name: `_`-separated words, each capitalized, with
 * acronym runs lower-cased after their first letter.
 *
 * @example
 * ```ts
 * import { pascalCase } from 'ovnkit-codegen';
 *
 * pascalCase('Logical_Switch_Port'); // 'LogicalSwitchPort'
 * pascalCase('ACL'); // 'Acl'
 * pascalCase('NB_Global'); // 'NbGlobal'
 * pascalCase('DHCPv6_Options'); // 'Dhcpv6Options'
 * pascalCase('Open_vSwitch'); // 'OpenVSwitch'
 * pascalCase('QoS'); // 'QoS'
 * ```
 */
export function pascalCase(name: string): string {
  return name
    .split('_')
    .filter((word) => word !== '')
    .map((word) => {
      const lowered = word.replace(/[A-Z]{2,}/g, (run) => run[0] + run.slice(1).toLowerCase());
      return lowered.charAt(0).toUpperCase() + lowered.slice(1);
    })
    .join('');
}

/**
 * The file stem for a table: lower case, `_` replaced by `-`
 * (`Logical_Switch_Port` → `logical-switch-port`).
 */
export function fileStem(table: string): string {
  return table.toLowerCase().replaceAll('_', '-');
}

const WELL_KNOWN_MODELS: Readonly<Record<string, string>> = {
  OVN_Northbound: 'NB',
  OVN_Southbound: 'SB',
  Open_vSwitch: 'OpenVSwitch',
  _Server: 'Server',
};

/**
 * The default model name for a database: `NB`, `SB`, `OpenVSwitch` and
 * `Server` for the well-known OVN and Open vSwitch databases, else the
 * PascalCase of the database name.
 */
export function defaultModelName(database: string): string {
  const known = Object.hasOwn(WELL_KNOWN_MODELS, database)
    ? WELL_KNOWN_MODELS[database]
    : undefined;
  if (known !== undefined) return known;
  const pascal = pascalCase(database);
  return /^[A-Za-z]/.test(pascal) ? pascal : `Db${pascal}`;
}

/** True when `name` is a valid (non-keyword-checked) TypeScript identifier. */
export function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
}

/**
 * Names a generated module must not declare: the names it imports, and the
 * globals and utility types that code importing a generated model is likely to
 * use (ECMAScript built-ins, TypeScript utility types, common Node and browser
 * globals), so that importing a generated name never shadows one of them.
 */
const RESERVED: ReadonlySet<string> = new Set([
  // Imported from the ovsdb layer.
  'Uuid',
  'Int64',
  'TableTypes',
  'DatabaseModel',
  'defineModel',
  'parseSchema',
  // TypeScript utility types used (or likely used) by generated code.
  'Partial',
  'Pick',
  'Omit',
  'Readonly',
  'Record',
  'Required',
  'Exclude',
  'Extract',
  'NonNullable',
  'ReadonlyArray',
  'ReturnType',
  'InstanceType',
  'Parameters',
  'Awaited',
  // ECMAScript globals.
  'AggregateError',
  'Array',
  'ArrayBuffer',
  'Atomics',
  'BigInt',
  'BigInt64Array',
  'BigUint64Array',
  'Boolean',
  'DataView',
  'Date',
  'Error',
  'EvalError',
  'FinalizationRegistry',
  'Float32Array',
  'Float64Array',
  'Function',
  'Infinity',
  'Int8Array',
  'Int16Array',
  'Int32Array',
  'Intl',
  'JSON',
  'Map',
  'Math',
  'NaN',
  'Number',
  'Object',
  'Promise',
  'Proxy',
  'RangeError',
  'ReferenceError',
  'Reflect',
  'RegExp',
  'Set',
  'SharedArrayBuffer',
  'String',
  'Symbol',
  'SyntaxError',
  'TypeError',
  'URIError',
  'Uint8Array',
  'Uint8ClampedArray',
  'Uint16Array',
  'Uint32Array',
  'WeakMap',
  'WeakRef',
  'WeakSet',
  // Common host globals.
  'Buffer',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'Event',
  'EventTarget',
  'Blob',
  'File',
  'Headers',
  'Request',
  'Response',
  'WebSocket',
  'Worker',
  'Node',
  'Element',
  'Document',
  'Window',
  'Storage',
  'Location',
  'Option',
  'Image',
  'Text',
  'Comment',
  'Range',
  'Selection',
  'Notification',
]);

/**
 * Hands out unique exported names for one generated database. A wanted name
 * that is reserved or already taken falls back to the next candidate, then to
 * the first candidate with a number appended, so the outcome depends only on
 * the order of the calls (which the generator keeps sorted).
 */
export class NameRegistry {
  readonly #taken = new Set<string>(RESERVED);

  /** Reserve `name` unconditionally (e.g. the model name chosen by the user). */
  reserve(name: string): void {
    this.#taken.add(name);
  }

  /** True when `name` is reserved or already handed out. */
  has(name: string): boolean {
    return this.#taken.has(name);
  }

  /** The first free name among `candidates` (or the first one numbered), now taken. */
  claim(...candidates: readonly string[]): string {
    const first = candidates[0];
    if (first === undefined) throw new TypeError('claim() needs at least one candidate');
    for (const c of candidates) {
      if (!this.#taken.has(c)) {
        this.#taken.add(c);
        return c;
      }
    }
    for (let n = 2; ; n++) {
      const c = `${first}${n}`;
      if (!this.#taken.has(c)) {
        this.#taken.add(c);
        return c;
      }
    }
  }
}

/**
 * Compare two identifiers or module paths the way Biome's import sorting does
 * for the names ovnkit generates: character by character, digit runs compared
 * as numbers, `_` and `-` before digits, digits before letters, letters
 * case-insensitively with upper case first (`A < a < B < b`).
 */
export function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a[i]!;
    const cb = b[j]!;
    const da = isDigit(ca);
    const db = isDigit(cb);
    if (da && db) {
      let ei = i;
      while (ei < a.length && isDigit(a[ei]!)) ei++;
      let ej = j;
      while (ej < b.length && isDigit(b[ej]!)) ej++;
      const na = Number(a.slice(i, ei));
      const nb = Number(b.slice(j, ej));
      if (na !== nb) return na - nb;
      i = ei;
      j = ej;
      continue;
    }
    const ra = charRank(ca);
    const rb = charRank(cb);
    if (ra !== rb) return ra - rb;
    i++;
    j++;
  }
  return a.length - i - (b.length - j);
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function charRank(c: string): number {
  if (c === '.') return 0;
  if (c === '/') return 1;
  if (c === '_') return 2;
  if (c === '-') return 3;
  if (c === '$') return 4;
  if (isDigit(c)) return 10 + c.charCodeAt(0);
  const lower = c.toLowerCase();
  if (lower >= 'a' && lower <= 'z') {
    return 100 + (lower.charCodeAt(0) - 97) * 2 + (c === lower ? 1 : 0);
  }
  return 1000 + c.charCodeAt(0);
}
