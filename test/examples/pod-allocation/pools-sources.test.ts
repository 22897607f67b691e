/**
 * Node sources: the nodes file (JSON and YAML, a list or `{ nodes }`, its
 * errors), the file-watched source's join/update/leave events, and a pool
 * reconciler driven by it against both servers (a node that joins gets its
 * pool, one that leaves has it collected, a broken file changes nothing).
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FileNodeSource,
  type NodeEvent,
  parseNodesFile,
} from '../../../examples/pod-allocation/pools/index.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { NB_SCHEMA } from './helpers.js';
import { poolRig, readPools } from './pools-rig.js';

const dir = mkdtempSync(join(tmpdir(), 'ovnkit-nodes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('nodes file', () => {
  it('parses JSON and YAML, a list or { nodes }', () => {
    expect(parseNodesFile('n.json', '[{"name":"a","subnet":"s","minIdle":2,"maxIdle":4}]')).toEqual(
      [{ name: 'a', subnet: 's', minIdle: 2, maxIdle: 4 }],
    );
    expect(
      parseNodesFile('n.yaml', 'nodes:\n  - name: b\n    batchSize: 3\n    idleTtlMs: 1000\n'),
    ).toEqual([{ name: 'b', batchSize: 3, idleTtlMs: 1000 }]);
  });

  it('names the file and what is wrong', () => {
    expect(() => parseNodesFile('n.json', '{')).toThrow(/^n\.json: not valid JSON/);
    expect(() => parseNodesFile('n.yml', 'a: [')).toThrow(/^n\.yml: not valid YAML/);
    expect(() => parseNodesFile('n.json', '[{"name":""}]')).toThrow(/^n\.json: 0\.name: /);
    expect(() => parseNodesFile('n.json', '[{"name":"a","minIdle":"2"}]')).toThrow(
      /^n\.json: 0\.minIdle: /,
    );
    expect(() => parseNodesFile('n.json', '{"pods":[]}')).toThrow(/expected a list of nodes/);
    expect(() => parseNodesFile('n.json', '[{"name":"a"},{"name":"a"}]')).toThrow(
      /1\.name: node a is listed twice/,
    );
  });

  it('reload turns file changes into add, update and delete events', async () => {
    const path = join(dir, 'events.json');
    writeFileSync(path, JSON.stringify([{ name: 'a', minIdle: 1 }, { name: 'b' }]));
    const errors: Error[] = [];
    const source = new FileNodeSource(path, { onError: (e) => errors.push(e) });
    const events: NodeEvent[] = [];
    const off = source.subscribe((e) => events.push(e));
    try {
      expect((await source.list()).map((n) => n.name)).toEqual(['a', 'b']);
      writeFileSync(path, JSON.stringify([{ name: 'a', minIdle: 2 }, { name: 'c' }]));
      source.reload();
      expect(events.map((e) => `${e.type} ${e.node.name}`)).toEqual([
        'update a',
        'add c',
        'delete b',
      ]);
      writeFileSync(path, 'not json');
      source.reload();
      expect(errors).toHaveLength(1);
      expect(events).toHaveLength(3);
      expect((await source.list()).map((n) => n.name)).toEqual(['a', 'c']);
    } finally {
      off();
      source.close();
    }
  });
});

describe.each(SERVER_KINDS)('a file of nodes driving pools against %s', (kind) => {
  it('nodes join and leave through the file', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const path = join(dir, `${kind}.yaml`);
    writeFileSync(path, 'nodes:\n  - { name: n1, subnet: s, minIdle: 2, maxIdle: 4 }\n');
    const nodes = new FileNodeSource(path, { intervalMs: 20 });
    const r = await poolRig(
      remote,
      { router: 'lr-files', subnets: [{ name: 's', cidr: '10.95.0.0/24' }] },
      { nodes: nodes as never },
    );
    try {
      await r.start();
      expect((await readPools(remote)).entries.get('n1')).toHaveLength(2);
      writeFileSync(
        path,
        'nodes:\n  - { name: n1, subnet: s, minIdle: 3, maxIdle: 4 }\n  - { name: n2, subnet: s, minIdle: 1 }\n',
      );
      nodes.reload();
      await r.settle();
      let view = await readPools(remote);
      expect(view.entries.get('n1')).toHaveLength(3);
      expect(view.entries.get('n2')).toHaveLength(1);
      expect(nodes.statuses.get('n2')).toMatchObject({ idle: 1, minIdle: 1, maxIdle: 1 });
      writeFileSync(path, 'nodes:\n  - { name: n2, subnet: s, minIdle: 1 }\n');
      nodes.reload();
      await r.settle();
      view = await readPools(remote);
      expect(view.entries.has('n1')).toBe(false);
      expect(view.entries.get('n2')).toHaveLength(1);
      expect(r.pools.stats.collected).toBe(3);
      writeFileSync(path, 'nodes: [');
      nodes.reload();
      await r.settle();
      expect((await readPools(remote)).entries.get('n2')).toHaveLength(1);
    } finally {
      await r.close();
      nodes.close();
      await server.stop();
    }
  });
});
