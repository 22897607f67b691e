/**
 * The pod-allocation controller process (`examples/pod-allocation/main.ts`,
 * spawned as an operator runs it, on a real ovsdb-server) when the file
 * behind its nodes or pods file path is swapped for something that is not a
 * regular file: a FIFO that no one writes (reading it would block for good)
 * or `/dev/zero` (endless). The process neither hangs nor aborts: it reports
 * the file (naming it) and keeps its last good list, a change of the other
 * file still reaches NB, nothing it manages is deleted, and SIGTERM stops it
 * cleanly. The child runs with its data size limited (`prlimit --data`), so
 * a reader that swallowed `/dev/zero` fails fast instead of eating the
 * machine's memory.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseClient } from '../../src/client/index.js';
import { NB, type NBTables } from '../../src/nb/index.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { until } from '../examples/pod-allocation/helpers.js';
import { startTestServer, type TestServerHandle } from '../helpers/servers.js';
import { NB_SCHEMA } from './helpers.js';

const MAIN = join(import.meta.dirname, '../../examples/pod-allocation/main.ts');
/** The child's data segment limit: far above what it needs, far below the machine's memory. */
const DATA_LIMIT = 2 * 1024 ** 3;

const pod = (name: string, on = 'node-1') =>
  `  - { namespace: default, name: ${name}, node: ${on} }\n`;
const node = (name: string, minIdle: number) =>
  `  - { name: ${name}, subnet: ovn-default, minIdle: ${minIdle}, maxIdle: ${minIdle} }\n`;

/** Replace `path` atomically: write a sibling, rename it over (what the README asks of writers). */
async function replace(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/** Point the symlink `path` at `target`, atomically. */
async function repoint(path: string, target: string): Promise<void> {
  await rm(`${path}.new`, { force: true });
  await symlink(target, `${path}.new`);
  await rename(`${path}.new`, path);
}

interface Running {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

function startController(args: readonly string[]): Running {
  const child = spawn(
    'prlimit',
    [
      `--data=${DATA_LIMIT}`,
      '--',
      process.execPath,
      '--conditions=ovnkit-source',
      '--import',
      'tsx',
      MAIN,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

const poolEntries = (client: DatabaseClient<NBTables>, nodeName: string) =>
  [...client.rows('Logical_Switch_Port')]
    .filter((p) => p.external_ids['pool'] === nodeName)
    .map((p) => p._uuid)
    .sort();

const CASES = [
  { swapped: 'nodes', to: 'fifo' },
  { swapped: 'nodes', to: '/dev/zero' },
  { swapped: 'pods', to: 'fifo' },
  { swapped: 'pods', to: '/dev/zero' },
] as const;

describe('the pod controller process and its watched files', () => {
  let server: TestServerHandle | undefined;
  let client: DatabaseClient<NBTables> | undefined;
  let running: Running | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    if (running !== undefined && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    running = undefined;
    await client?.close();
    client = undefined;
    await server?.stop();
    server = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  for (const c of CASES) {
    it(`the ${c.swapped} file swapped to ${c.to}: no hang, no abort, the other file still applies`, async () => {
      requireOvsdbServer();
      server = await startTestServer('ovsdb-server', { schemaPath: NB_SCHEMA });
      dir = await mkdtemp(join(tmpdir(), 'ovnkit-files-'));
      // Each path is a symlink to the real file, as a Kubernetes ConfigMap volume mounts it.
      const files = { pods: join(dir, 'pods.yaml'), nodes: join(dir, 'nodes.yaml') };
      await writeFile(join(dir, 'pods-v1.yaml'), `pods:\n${pod('p1')}${pod('p2')}`);
      await writeFile(join(dir, 'nodes-v1.yaml'), `nodes:\n${node('node-1', 2)}`);
      await symlink('pods-v1.yaml', files.pods);
      await symlink('nodes-v1.yaml', files.nodes);
      running = startController([
        '--nb',
        server.unixRemote,
        '--pods',
        files.pods,
        '--nodes',
        files.nodes,
        '--poll-ms',
        '20',
      ]);
      const r = running;
      /** Wait for `check`, failing with what the controller logged. */
      const waitFor = (check: () => boolean, ms: number) =>
        until(check, ms).catch(() => {
          throw new Error(`timed out; the controller's stderr:\n${r.stderr()}`);
        });
      await waitFor(() => r.stdout().includes('ready\n'), 30_000);
      client = connectDatabase({ remotes: server.unixRemote, model: NB });
      await client.ready;
      const nb = client;
      const port = (name: string) =>
        [...nb.rows('Logical_Switch_Port')].some((p) => p.name === name);
      await waitFor(() => port('p1.default') && port('p2.default'), 10_000);
      await waitFor(() => poolEntries(nb, 'node-1').length === 2, 10_000);
      const entries = poolEntries(nb, 'node-1');

      let target: string = c.to;
      if (c.to === 'fifo') {
        target = join(dir, 'fifo');
        execFileSync('mkfifo', [target]);
      }
      await repoint(files[c.swapped], target);
      // Many polls of the swapped file.
      await sleep(300);
      if (c.swapped === 'nodes') {
        await replace(
          join(dir, 'pods-v1.yaml'),
          `pods:\n${pod('p1')}${pod('p2')}${pod('p3', 'node-9')}`,
        );
        await waitFor(() => port('p3.default'), 10_000);
      } else {
        await replace(
          join(dir, 'nodes-v1.yaml'),
          `nodes:\n${node('node-1', 2)}${node('node-2', 1)}`,
        );
        await waitFor(() => poolEntries(nb, 'node-2').length === 1, 10_000);
      }
      expect(r.child.exitCode).toBeNull();
      // Named, and refused for what it is.
      expect(r.stderr()).toContain(files[c.swapped]);
      expect(r.stderr()).toMatch(/not a regular file/);
      // The last good lists stand: nothing deleted.
      expect(poolEntries(nb, 'node-1')).toEqual(entries);
      expect(port('p1.default') && port('p2.default')).toBe(true);

      r.child.kill('SIGTERM');
      const code = await Promise.race([r.exited, sleep(10_000).then(() => 'still running')]);
      expect(code, r.stderr()).toBe(0);
    }, 90_000);
  }
});
