/**
 * The packages' commands as a consumer runs them, from `node_modules/.bin`
 * of a project that installed the tarballs: `--help`, and one real action
 * each. `ovnkit-server` serves the NB schema the package ships, the real
 * `ovsdb-client` lists its databases and inserts a switch, and `ovnkit show`
 * prints it; `ovnkit-codegen`, from the `ovnkit-codegen` package installed
 * with `ovnkit` in the codegen consumer, generates models that type-check
 * against the installed `ovnkit/ovsdb`.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { type PackedInstall, packedInstall, REPO, runIn, TSC } from './packed.js';

let installed: PackedInstall;
/** Scratch directories inside the runtime consumer and the codegen consumer. */
let dir: string;
let codegenDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  installed = await packedInstall();
  dir = mkdtempSync(join(installed.consumer, 'bins-'));
  codegenDir = mkdtempSync(join(installed.codegen.consumer, 'bins-'));
}, 300_000);

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of [dir, codegenDir])
    if (d !== undefined) rmSync(d, { recursive: true, force: true });
});

const bin = (name: string) => join(installed.consumer, 'node_modules/.bin', name);
const codegenBin = () => join(installed.codegen.consumer, 'node_modules/.bin/ovnkit-codegen');
const nbSchema = (consumer = installed.consumer) =>
  join(consumer, 'node_modules/ovnkit/schema/ovn-nb-7.18.0.ovsschema');

describe('--help', () => {
  for (const [name, usage] of [
    ['ovnkit', /^Usage: ovnkit <command>/],
    ['ovnkit-server', /^Usage:\n\s+ovnkit-server --schema FILE/],
  ] as const) {
    it(`${name} --help prints its usage and exits 0`, async () => {
      const { stdout } = await runIn(dir, bin(name), ['--help'], 30_000);
      expect(stdout).toMatch(usage);
    });
  }

  it('ovnkit-codegen (from the ovnkit-codegen package) --help prints its usage and exits 0', async () => {
    const { stdout } = await runIn(codegenDir, codegenBin(), ['--help'], 30_000);
    expect(stdout).toMatch(/^Usage:\n\s+ovnkit-codegen --schema FILE --out DIR/);
  });

  it('the ovnkit package has exactly the ovnkit and ovnkit-server commands', () => {
    const pkg = JSON.parse(
      readFileSync(join(installed.consumer, 'node_modules/ovnkit/package.json'), 'utf8'),
    ) as { bin: Record<string, string> };
    expect(Object.keys(pkg.bin).sort()).toEqual(['ovnkit', 'ovnkit-server']);
    expect(existsSync(bin('ovnkit-codegen'))).toBe(false);
  });
});

/** Resolve once `path` accepts connections (or reject after `ms`). */
async function listening(path: string, child: ChildProcess, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`ovnkit-server exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((done) => {
      const s = netConnect(path);
      s.once('connect', () => {
        s.destroy();
        done(true);
      });
      s.once('error', () => done(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`ovnkit-server did not listen on ${path}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('one real action each', () => {
  it('ovnkit-server serves the shipped NB schema; ovsdb-client and ovnkit show talk to it', async () => {
    const tools = requireOvsdbServer();
    const sock = join(dir, 'nb.sock');
    const server = spawn(
      bin('ovnkit-server'),
      ['--schema', nbSchema(), '--listen', `punix:${sock}`],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    children.push(server);
    let stderr = '';
    server.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    try {
      await listening(sock, server);
      const dbs = await runIn(dir, tools.ovsdbClient, ['list-dbs', `unix:${sock}`], 30_000);
      expect(dbs.stdout.split('\n').filter(Boolean).sort()).toEqual(['OVN_Northbound', '_Server']);
      const insert = JSON.stringify([
        'OVN_Northbound',
        { op: 'insert', table: 'Logical_Switch', row: { name: 'packed-sw' } },
      ]);
      await runIn(dir, tools.ovsdbClient, ['transact', `unix:${sock}`, insert], 30_000);
      const show = await runIn(dir, bin('ovnkit'), ['show', '--db', `unix:${sock}`], 30_000);
      expect(show.stdout).toMatch(/^switch [0-9a-f-]{36} \(packed-sw\)$/m);
    } finally {
      server.kill('SIGTERM');
    }
    expect(stderr).toBe('');
  }, 60_000);

  it('ovnkit-codegen generates models that type-check against the installed ovnkit', async () => {
    const { consumer } = installed.codegen;
    const out = join(codegenDir, 'models');
    await runIn(codegenDir, codegenBin(), ['--schema', nbSchema(consumer), '--out', out], 60_000);
    const files = readdirSync(out);
    expect(files).toEqual(expect.arrayContaining(['index.ts', 'model.ts', 'logical-switch.ts']));
    expect(files.length).toBeGreaterThan(20);
    // The generated code imports `ovnkit/ovsdb`: resolve it from the installed tarball.
    writeFileSync(
      join(codegenDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        include: ['models/*.ts'],
      }),
    );
    const { stdout } = await runIn(
      codegenDir,
      process.execPath,
      [TSC, '-p', '.', '--listFiles'],
      90_000,
    );
    const listed = stdout.split('\n').map((l) => l.trim());
    expect(listed).toContain(join(consumer, 'node_modules/ovnkit/dist/src/ovsdb/index.d.ts'));
    // Nothing resolved through the repository (its compiler's lib files aside).
    expect(
      listed.filter(
        (f) => f.startsWith(`${REPO}/`) && !f.startsWith(`${REPO}/node_modules/typescript/`),
      ),
    ).toEqual([]);
    expect(existsSync(join(out, 'model.ts'))).toBe(true);
  }, 120_000);

  it('ovnkit-codegen documents NB, SB and Open_vSwitch models from the XML the installed ovnkit ships', async () => {
    const { consumer } = installed.codegen;
    const shipped = join(consumer, 'node_modules/ovnkit/schema');
    for (const file of ['ovn-nb.xml', 'ovn-sb.xml', 'vswitch.xml']) {
      expect(existsSync(join(shipped, file)), file).toBe(true);
    }
    const cases = [
      [nbSchema(consumer), 'logical-switch.ts', 'Each row represents one L2 logical switch.'],
      [join(REPO, 'test/fixtures/schemas/ovn-sb.ovsschema'), 'chassis.ts', 'chassis names.'],
      [join(REPO, 'test/fixtures/schemas/vswitch.ovsschema'), 'bridge.ts', 'Name of datapath'],
    ] as const;
    for (const [schema, file, phrase] of cases) {
      const out = mkdtempSync(join(codegenDir, 'docs-'));
      const { stderr } = await runIn(
        codegenDir,
        codegenBin(),
        ['--schema', schema, '--out', out],
        60_000,
      );
      expect(stderr).not.toContain('warning');
      expect(readFileSync(join(out, file), 'utf8').replace(/\s+\* /g, ' ')).toContain(phrase);
    }
  }, 180_000);
});
