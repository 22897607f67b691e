/**
 * Node sources: the nodes file (JSON and YAML, a list or `{ nodes }`, its
 * errors), the file-watched source's join/update/leave events, when it
 * accepts a new list (whole: parsed, and a list that drops nodes read the
 * same twice), what it refuses to read, and a pool reconciler driven by it
 * against both servers (a node that joins gets its pool, one that leaves
 * has it collected, a broken file changes nothing, and a file read while
 * it is rewritten in place deletes no pool).
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { readRegularFile } from '../../../examples/pod-allocation/controller/watched-file.js';
import {
  FileNodeSource,
  type NodeEvent,
  parseNodesFile,
} from '../../../examples/pod-allocation/pools/index.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { NB_SCHEMA, until } from './helpers.js';
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
    // Reads only when told (no poll, no confirming read by timer in the test's time).
    const source = new FileNodeSource(path, { ...MANUAL, onError: (e) => errors.push(e) });
    const events: NodeEvent[] = [];
    const off = source.subscribe((e) => events.push(e));
    try {
      await source.whenSynced(); // the first list, read unchanged 300 ms apart
      expect((await source.list()).map((n) => n.name)).toEqual(['a', 'b']);
      expect(events.map((e) => `${e.type} ${e.node.name}`)).toEqual(['add a', 'add b']);
      events.length = 0;
      writeFileSync(path, JSON.stringify([{ name: 'a', minIdle: 2 }, { name: 'c' }]));
      await readTwice(source);
      expect(events.map((e) => `${e.type} ${e.node.name}`)).toEqual([
        'update a',
        'add c',
        'delete b',
      ]);
      writeFileSync(path, 'not json');
      await readTwice(source);
      expect(errors).toHaveLength(1);
      expect(events).toHaveLength(3);
      expect((await source.list()).map((n) => n.name)).toEqual(['a', 'c']);
    } finally {
      off();
      source.close();
    }
  });

  it('accepts a list only from a file unchanged between two reads: cut short or broken, the last list stands', async () => {
    const path = join(dir, 'whole.yaml');
    const full = `nodes:\n${yamlNode('a')}${yamlNode('b')}${yamlNode('c')}`;
    writeFileSync(path, full);
    const errors: Error[] = [];
    const source = new FileNodeSource(path, { ...MANUAL, onError: (e) => errors.push(e) });
    const events: string[] = [];
    source.subscribe((e) => events.push(`${e.type} ${e.node.name}`));
    let synced = false;
    void source.whenSynced().then(() => {
      synced = true;
    });
    try {
      // The first list waits too: garbage collection takes it for everything that exists.
      await sleep(100);
      expect(synced).toBe(false);
      await sleep(MANUAL.confirmMs);
      await source.reload();
      expect(synced).toBe(true);
      events.length = 0;
      // A writer that rewrites in place, caught after its first node, then in the middle of a
      // line, then done: each read sees another file; the last one, read twice, is taken.
      writeFileSync(path, `nodes:\n${yamlNode('a')}`);
      await source.reload();
      writeFileSync(path, `nodes:\n${yamlNode('a')}  - name: b\n    sub`);
      await source.reload();
      writeFileSync(path, full);
      await readTwice(source);
      expect(events).toEqual([]);
      expect((await source.list()).map((n) => n.name)).toEqual(['a', 'b', 'c']);
      // A broken file that stays: reported, and the last list kept.
      writeFileSync(path, 'nodes: [');
      await readTwice(source);
      expect(errors.map((e) => e.message)).toEqual([
        expect.stringMatching(/whole\.yaml: not valid YAML/),
      ]);
      // A change that stays, read twice, is applied, a shrink as any other.
      writeFileSync(path, `nodes:\n${yamlNode('a', 3)}`);
      await source.reload();
      expect(events).toEqual([]);
      await sleep(MANUAL.confirmMs + 20);
      await source.reload();
      expect(events).toEqual(['update a', 'delete b', 'delete c']);
    } finally {
      source.close();
    }
  });

  it('reads only regular files within the size bound, and names the file it refuses', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const sub = join(dir, 'a-directory');
    mkdirSync(sub);
    const big = join(dir, 'big.json');
    writeFileSync(big, `[${'{"name":"n"},'.repeat(100)}{"name":"m"}]`);
    await expect(readRegularFile(fifo, 1024)).rejects.toThrow(
      `${fifo}: not a regular file (a FIFO); not read`,
    );
    await expect(readRegularFile('/dev/zero', 1024)).rejects.toThrow(
      '/dev/zero: not a regular file (a character device); not read',
    );
    await expect(readRegularFile(sub, 1024)).rejects.toThrow(
      `${sub}: not a regular file (a directory); not read`,
    );
    await expect(readRegularFile(big, 1024)).rejects.toThrow(
      `${big}: 1314 bytes, more than the limit of 1024; not read`,
    );
    expect((await readRegularFile(big, 2048)).text).toHaveLength(1314);
    // Through a source: refused, reported, and the last list kept.
    const path = join(dir, 'bounded.json');
    writeFileSync(path, '[{"name":"a"}]');
    const errors: Error[] = [];
    const source = new FileNodeSource(path, {
      ...MANUAL,
      maxBytes: 1024,
      onError: (e) => errors.push(e),
    });
    try {
      await source.whenSynced();
      await rename(big, path);
      await source.reload();
      expect(errors.map((e) => e.message)).toEqual([
        `${path}: 1314 bytes, more than the limit of 1024; not read`,
      ]);
      expect((await source.list()).map((n) => n.name)).toEqual(['a']);
    } finally {
      source.close();
    }
  });
});

describe('nodes file read time limit', () => {
  it('a read that runs out of time is reported, and no other read starts until it ends', async () => {
    const path = join(dir, 'slow.json');
    writeFileSync(path, `[${' '.repeat(48 * 1024 * 1024)}]`);
    const errors: Error[] = [];
    // 48 MiB cannot be read in 1 ms: every read runs out of time.
    const source = new FileNodeSource(path, {
      ...MANUAL,
      readTimeoutMs: 1,
      onError: (e) => errors.push(e),
    });
    /** Descriptors of this process open on the file. */
    const openOnFile = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === path;
        } catch {
          return false; // closed meanwhile
        }
      }).length;
    try {
      let most = 0;
      for (let i = 0; i < 30; i++) {
        await source.reload();
        most = Math.max(most, openOnFile());
      }
      expect(most).toBeLessThanOrEqual(1);
      const messages = new Set(errors.map((e) => e.message));
      expect(messages).toEqual(
        new Set([
          `${path}: not read within 1 ms`,
          `${path}: the last read has not finished; not read again`,
        ]),
      );
    } finally {
      source.close();
    }
    await until(() => openOnFile() === 0, 10_000);
  });
});

/** No polls in a test's time: the test reads with `reload()`; a list is taken 300 ms after it was read. */
const MANUAL = { intervalMs: 600_000, confirmMs: 300 } as const;

/** Read the file, and again once its list may be taken (a change that stays is then applied). */
async function readTwice(source: { reload(): Promise<void> }): Promise<void> {
  await source.reload();
  await sleep(MANUAL.confirmMs + 20);
  await source.reload();
}

const yamlNode = (name: string, minIdle = 2) =>
  `  - name: ${name}\n    subnet: s\n    minIdle: ${minIdle}\n    maxIdle: ${minIdle}\n`;

/**
 * Rewrite `path` in place as a careless writer does: truncate, then one line
 * at a time with a pause between, so that a poll may find any prefix.
 */
async function rewriteInPlace(path: string, text: string, pauseMs: number): Promise<void> {
  const file = await open(path, 'w');
  try {
    for (const line of text.split(/(?<=\n)/)) {
      await file.write(line);
      await sleep(pauseMs);
    }
  } finally {
    await file.close();
  }
}

describe.each(SERVER_KINDS)('a file of nodes driving pools against %s', (kind) => {
  it('a file polled while it is rewritten in place deletes and recreates no pool', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const path = join(dir, `rewrite-${kind}.yaml`);
    const full = `nodes:\n${yamlNode('n1')}${yamlNode('n2')}${yamlNode('n3')}`;
    writeFileSync(path, full);
    const nodes = new FileNodeSource(path, { intervalMs: 5 });
    const events: string[] = [];
    nodes.subscribe((e) => events.push(`${e.type} ${e.node.name}`));
    const r = await poolRig(
      remote,
      { router: 'lr-rewrite', subnets: [{ name: 's', cidr: '10.96.0.0/24' }] },
      { nodes: nodes as never },
    );
    try {
      await r.start();
      const before = await readPools(remote);
      const uuids = (v: typeof before) =>
        [...v.entries.values()]
          .flat()
          .map((e) => e.uuid)
          .sort();
      expect(uuids(before)).toHaveLength(6);
      // 20 rewrites of the same nodes, each line 2 ms after the other, polled every 5 ms.
      for (let i = 0; i < 20; i++) await rewriteInPlace(path, full, 2);
      await sleep(1_500); // past the confirming read of anything seen last
      await r.settle();
      const after = await readPools(remote);
      expect({
        events: events.filter((e) => !e.startsWith('add')),
        collected: r.pools.stats.collected,
        created: r.pools.stats.created,
        entries: uuids(after),
      }).toEqual({ events: [], collected: 0, created: 6, entries: uuids(before) });
    } finally {
      await r.close();
      nodes.close();
      await server.stop();
    }
  }, 60_000);

  it('nodes join and leave through the file', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const path = join(dir, `${kind}.yaml`);
    writeFileSync(path, 'nodes:\n  - { name: n1, subnet: s, minIdle: 2, maxIdle: 4 }\n');
    const nodes = new FileNodeSource(path, MANUAL);
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
      await readTwice(nodes);
      await r.settle();
      let view = await readPools(remote);
      expect(view.entries.get('n1')).toHaveLength(3);
      expect(view.entries.get('n2')).toHaveLength(1);
      expect(nodes.statuses.get('n2')).toMatchObject({ idle: 1, minIdle: 1, maxIdle: 1 });
      writeFileSync(path, 'nodes:\n  - { name: n2, subnet: s, minIdle: 1 }\n');
      await readTwice(nodes);
      await r.settle();
      view = await readPools(remote);
      expect(view.entries.has('n1')).toBe(false);
      expect(view.entries.get('n2')).toHaveLength(1);
      expect(r.pools.stats.collected).toBe(3);
      writeFileSync(path, 'nodes: [');
      await readTwice(nodes);
      await r.settle();
      expect((await readPools(remote)).entries.get('n2')).toHaveLength(1);
    } finally {
      await r.close();
      nodes.close();
      await server.stop();
    }
  });
});
