/**
 * The layer rule holds: every import between the folders of `src/` (and
 * from `codegen/` and `examples/`) goes down the layers of
 * docs/architecture.md, none climbs (type-only imports included), and no two
 * files import each other, directly or through others, not even by a type.
 */

import { describe, expect, it } from 'vitest';
import { cycles, type ImportEdge, importGraph, importsOf } from '../helpers/import-graph.js';
import { checkLayers, layerOf } from './layers.js';

const graph = importGraph(['src', 'codegen', 'examples']);
const edges = [...graph.values()].flat();
const show = (e: ImportEdge): string => `${e.from} → ${e.to}${e.typeOnly ? ' (type)' : ''}`;
/** An edge written by hand, its specifier relative as the graph reader would write it. */
const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({
  from,
  to,
  typeOnly,
  specifier: `./${to}`,
});

describe('the layer rule', () => {
  it('sees the whole tree', () => {
    // A broken walk would find nothing and pass: make sure it found the layers.
    const layers = new Set([...graph.keys()].map(layerOf));
    for (const layer of [
      'ovsdb/wire',
      'ovsdb/schema',
      'ovsdb/values',
      'ovsdb/transport',
      'ovsdb/connection',
      'observability',
      'rows',
      'client/replica',
      'client',
      'transactions',
      'desired',
      'nb',
      'server',
      'net',
      'bridge',
      'testing',
      'cli',
      'codegen',
      'examples',
    ]) {
      expect(layers, layer).toContain(layer);
    }
    expect(edges.length).toBeGreaterThan(500);
  });

  it('no import goes up or sideways between layers', () => {
    const violations = checkLayers(edges).map((v) => `${show(v.edge)}: ${v.reason}`);
    expect(violations).toEqual([]);
  });

  it('no import cycle between files, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('codegen reaches the core through its public entry point only', () => {
    const fromCodegen = edges.filter(
      (e) => e.from.startsWith('codegen/') && e.to.startsWith('src/'),
    );
    expect(fromCodegen.length).toBeGreaterThan(0);
    expect([...new Set(fromCodegen.map((e) => e.to))]).toEqual(['src/ovsdb/index.ts']);
  });

  it('every relative import names a file that exists', () => {
    const missing = edges.filter((e) => !graph.has(e.to) && /\.(m?ts)$/.test(e.to)).map(show);
    expect(missing).toEqual([]);
  });
});

describe('the checker itself', () => {
  it('reports an upward import, a sideways one and a type-only one', () => {
    const found = checkLayers([
      edge('src/ovsdb/wire/rpc.ts', 'src/client/client.ts'),
      edge('src/server/server.ts', 'src/bridge/bridge.ts'),
      edge('src/ovsdb/values/datum.ts', 'src/ovsdb/connection/connection.ts', true),
      edge('src/client/client.ts', 'src/ovsdb/wire/rpc.ts'),
      edge('src/client/replica/replica.ts', 'src/client/status.ts', true),
      edge('src/client/client.ts', 'src/client/replica/replica.ts'),
      edge('src/transactions/run.ts', 'src/client/executor.ts', true),
    ]).map((v) => v.reason);
    expect(found).toEqual([
      'ovsdb/wire may not import client',
      'server may not import bridge',
      'ovsdb/values may not import ovsdb/connection (not even types)',
      'client/replica may not import client (not even types)',
      'transactions may not import client (not even types)',
    ]);
  });

  it('finds a cycle, and ignores type-only edges when asked', () => {
    const g = new Map<string, ImportEdge[]>([
      ['a.ts', [edge('a.ts', 'b.ts')]],
      ['b.ts', [edge('b.ts', 'c.ts')]],
      ['c.ts', [edge('c.ts', 'a.ts', true)]],
      ['d.ts', [edge('d.ts', 'd.ts')]],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
    expect(cycles(g, (e) => !e.typeOnly)).toEqual([['d.ts']]);
  });

  it('refuses every import of an example but the public entry points and its own files', () => {
    const edges = importsOf(
      'test/architecture/fixtures/example-imports.ts.txt',
      'examples/demo/main.ts',
    );
    expect(edges.map((e) => `${e.specifier} → ${e.to}`)).toEqual([
      'ovnkit/client → src/client/index.ts',
      'ovnkit → src/index.ts',
      './controller/pod.js → examples/demo/controller/pod.ts',
      '../../src/nb/index.js → src/nb/index.ts',
      '../../src/net/metrics-endpoint.js → src/net/metrics-endpoint.ts',
      'ovnkit/src/ovsdb/tracing.js → ovnkit/src/ovsdb/tracing.js',
      '../other-example/thing.js → examples/other-example/thing.ts',
      '../../src/testing/ovs-tools.js → src/testing/ovs-tools.ts',
    ]);
    const refused = checkLayers(edges).map((v) => `${v.edge.specifier}: ${v.reason}`);
    expect(refused).toEqual([
      '../../src/nb/index.js: examples import ovnkit by its public entry points (ovnkit, ovnkit/…) and otherwise files of their own folder only, not ../../src/nb/index.js',
      '../../src/net/metrics-endpoint.js: examples import ovnkit by its public entry points (ovnkit, ovnkit/…) and otherwise files of their own folder only, not ../../src/net/metrics-endpoint.js',
      'ovnkit/src/ovsdb/tracing.js: examples import ovnkit by its public entry points only; ovnkit/src/ovsdb/tracing.js is not one (package.json exports)',
      '../other-example/thing.js: examples import ovnkit by its public entry points (ovnkit, ovnkit/…) and otherwise files of their own folder only, not ../other-example/thing.js',
      '../../src/testing/ovs-tools.js: examples import ovnkit by its public entry points (ovnkit, ovnkit/…) and otherwise files of their own folder only, not ../../src/testing/ovs-tools.js',
    ]);
  });

  it('reads multi-line, type-only, re-export and dynamic imports', () => {
    const found = importsOf('test/architecture/fixtures/imports.ts').map(
      (e) => `${e.to}${e.typeOnly ? ' type' : ''}`,
    );
    expect(found).toEqual([
      'src/ovsdb/wire/errors.ts',
      'src/ovsdb/schema/model.ts type',
      'src/ovsdb/values/uuid.ts type',
      'src/ovsdb/values/datum.ts',
      'src/ovsdb/wire/framer.ts',
      'src/client/client.ts',
      'src/ovsdb/wire/wire.ts type',
    ]);
  });
});
