/**
 * The layer rule (docs/architecture.md), as data: which layer a file belongs
 * to, and which layers each layer may import. `checkLayers` lists every
 * import that breaks it.
 * @module
 */

import { type ImportEdge, PACKAGE_NAME } from '../helpers/import-graph.js';

/** The sub-layers of the core, bottom first. */
const CORE = [
  'ovsdb/wire',
  'ovsdb/schema',
  'ovsdb/values',
  'ovsdb/transport',
  'ovsdb/connection',
] as const;

/**
 * What each layer may import (besides itself). Inside the core, `schema`
 * and `values` are one tier: schema types describe values, and parsing a
 * schema checks its defaults and enums with the value codec; their files
 * still form no cycle (the cycle check covers every file). Inside the
 * client, the replica is a floor below the client that feeds it: an import
 * from `client/replica/` up into `client/` climbs.
 */
/** What the Northbound layer may import: the client side below it. */
const BELOW_NB = [
  'desired',
  'transactions',
  'client',
  'client/replica',
  'rows',
  'observability',
  'ovsdb',
  ...CORE,
] as const;

export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  'ovsdb/wire': [],
  'ovsdb/schema': ['ovsdb/wire', 'ovsdb/values'],
  'ovsdb/values': ['ovsdb/wire', 'ovsdb/schema'],
  'ovsdb/transport': ['ovsdb/wire', 'ovsdb/schema', 'ovsdb/values'],
  'ovsdb/connection': ['ovsdb/wire', 'ovsdb/schema', 'ovsdb/values', 'ovsdb/transport'],
  ovsdb: [...CORE],
  observability: [],
  rows: ['ovsdb', ...CORE],
  transactions: ['rows', 'observability', 'ovsdb', ...CORE],
  'client/replica': ['rows', 'observability', 'ovsdb', ...CORE],
  client: ['client/replica', 'transactions', 'rows', 'observability', 'ovsdb', ...CORE],
  desired: ['transactions', 'client', 'client/replica', 'rows', 'observability', 'ovsdb', ...CORE],
  nb: BELOW_NB,
  net: ['ovsdb', ...CORE],
  server: ['net', 'observability', 'ovsdb', ...CORE],
  // The `ovnkit-server` program (command line, daemon, unixctl, its HTTP
  // metrics, config files) over the server library, which never imports it.
  'server/program': ['server', 'net', 'observability', 'ovsdb', ...CORE],
  bridge: ['net', 'ovsdb', ...CORE],
  testing: ['server', 'net', 'nb', ...BELOW_NB],
  cli: [
    'bridge',
    'server/program',
    'server',
    'net',
    'nb',
    'transactions',
    'client',
    'client/replica',
    'rows',
    'observability',
    'ovsdb',
    ...CORE,
  ],
  // The browser build: nothing that needs Node's sockets or file system.
  browser: ['nb', ...BELOW_NB],
  root: ['nb', ...BELOW_NB],
  codegen: ['ovsdb', ...CORE],
  // Examples are written as a user of the package writes code: see `exampleImportProblem`.
  examples: [],
};

/**
 * The layer of a file (a path relative to the repository root), or undefined
 * for files outside the layered tree (tests, benchmarks, configuration).
 */
export function layerOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] === 'codegen') return 'codegen';
  if (parts[0] === 'examples') return 'examples';
  if (parts[0] !== 'src') return undefined;
  if (parts.length === 2) {
    if (parts[1] === 'index.ts') return 'root';
    if (parts[1] === 'browser.ts') return 'browser';
    return undefined;
  }
  if (parts[1] === 'ovsdb') return parts.length === 3 ? 'ovsdb' : `ovsdb/${parts[2]}`;
  if (parts[1] === 'client' && parts[2] === 'replica') return 'client/replica';
  if (parts[1] === 'server' && parts[2] === 'program') return 'server/program';
  return parts[1];
}

/** One import that breaks the layer rule, worded for a failure message. */
export interface LayerViolation {
  readonly edge: ImportEdge;
  readonly reason: string;
}

/**
 * What is wrong with an import of an example, or undefined: an example
 * imports ovnkit only by its public entry points (`ovnkit`, `ovnkit/nb`, …:
 * package.json `exports`), never a file of `src/` or a path the package does
 * not export, and otherwise only files of its own folder
 * (`examples/<name>/`), so that it can be copied out of the repository as
 * it is.
 */
function exampleImportProblem(edge: ImportEdge): string | undefined {
  const { specifier, to } = edge;
  if (specifier === PACKAGE_NAME || specifier.startsWith(`${PACKAGE_NAME}/`)) {
    if (layerOf(to) !== undefined) return undefined; // an entry point, resolved to its source
    return `examples import ${PACKAGE_NAME} by its public entry points only; ${specifier} is not one (package.json exports)`;
  }
  const own = `${edge.from.split('/').slice(0, 2).join('/')}/`;
  if (to.startsWith(own)) return undefined;
  return `examples import ${PACKAGE_NAME} by its public entry points (${PACKAGE_NAME}, ${PACKAGE_NAME}/…) and otherwise files of their own folder only, not ${specifier}`;
}

/** Every import of `edges` that breaks the layer rule. */
export function checkLayers(edges: Iterable<ImportEdge>): LayerViolation[] {
  const out: LayerViolation[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from);
    if (from === undefined) continue;
    if (from === 'examples') {
      const reason = exampleImportProblem(edge);
      if (reason !== undefined) out.push({ edge, reason });
      continue;
    }
    const to = layerOf(edge.to);
    if (to === undefined) {
      out.push({ edge, reason: `${from} imports a file outside the layered tree` });
      continue;
    }
    if (to === from) continue;
    const allowed = ALLOWED[from];
    if (allowed === undefined) {
      out.push({ edge, reason: `${from} is not a known layer` });
    } else if (!allowed.includes(to)) {
      out.push({
        edge,
        reason: `${from} may not import ${to}${edge.typeOnly ? ' (not even types)' : ''}`,
      });
    }
  }
  return out;
}
