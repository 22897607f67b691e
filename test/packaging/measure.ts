/**
 * Measurements of the packed packages (printed, not asserted): tarball size,
 * unpacked size and file count from `npm pack --json` for `ovnkit` and
 * `ovnkit-codegen`; the installed size of each consumer's `node_modules`
 * (the runtime consumer has `ovnkit` alone, the codegen consumer adds
 * `ovnkit-codegen`) and whether TypeScript or ts-morph is in it; and the
 * cold import time of `ovnkit` and `ovnkit/nb` (runtime consumer) and of
 * `ovnkit-codegen` (codegen consumer): a fresh Node process per sample,
 * median of 5. Run with `node --import tsx test/packaging/measure.ts`.
 */

import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type PackInfo, packedInstall, runIn } from './packed.js';

const SAMPLES = 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Bytes of the files under `path` (symbolic links not followed). */
function diskBytes(path: string): number {
  const st = lstatSync(path);
  if (!st.isDirectory()) return st.isFile() ? st.size : 0;
  return readdirSync(path).reduce((n, name) => n + diskBytes(join(path, name)), 0);
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const installed = await packedInstall();
const consumers = [
  ['runtime', installed.consumer],
  ['codegen', installed.codegen.consumer],
] as const;
const dirs = consumers.map(([, consumer]) => mkdtempSync(join(consumer, 'measure-')));
try {
  for (const [what, pack] of [
    ['ovnkit', installed.pack],
    ['ovnkit-codegen', installed.codegen.pack],
  ] as const satisfies readonly (readonly [string, PackInfo])[]) {
    console.log(
      `tarball   ${what.padEnd(15)} ${pack.filename}: ${kib(pack.size)} packed, ${kib(pack.unpackedSize)} unpacked, ${pack.entryCount} files`,
    );
  }
  for (const [what, consumer] of consumers) {
    const nm = join(consumer, 'node_modules');
    const present = ['typescript', 'ts-morph', '@ts-morph/common'].map(
      (p) => `${p} ${existsSync(join(nm, p)) ? 'installed' : 'absent'}`,
    );
    console.log(
      `install   ${`${what} consumer`.padEnd(16)} node_modules ${mib(diskBytes(nm))}; ${present.join(', ')}`,
    );
  }
  // The import alone, timed inside the process; the whole process, timed outside.
  for (const dir of dirs) {
    writeFileSync(
      join(dir, 'import.mjs'),
      `const t = performance.now();\nawait import(process.argv[2]);\nconsole.log(performance.now() - t);\n`,
    );
  }
  for (const [specifier, dir] of [
    ['ovnkit', dirs[0]!],
    ['ovnkit/nb', dirs[0]!],
    ['ovnkit-codegen', dirs[1]!],
  ] as const) {
    const inProcess: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      const { stdout } = await runIn(dir, process.execPath, ['import.mjs', specifier]);
      wall.push(performance.now() - t0);
      inProcess.push(Number(stdout.trim()));
    }
    console.log(
      `import    ${specifier.padEnd(15)} median of ${SAMPLES}: ${median(inProcess).toFixed(0)} ms (process wall ${median(wall).toFixed(0)} ms)`,
    );
  }
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
