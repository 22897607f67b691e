/**
 * Measurements of the packed package (printed, not asserted): tarball size,
 * unpacked size and file count from `npm pack --json`, and the cold import
 * time of `ovnkit` and `ovnkit/nb` from the installed tarball: a fresh Node
 * process per sample, median of 5. Run with
 * `node --import tsx test/packaging/measure.ts`.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packedInstall, runIn } from './packed.js';

const SAMPLES = 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const installed = await packedInstall();
const dir = mkdtempSync(join(installed.consumer, 'measure-'));
try {
  // The import alone, timed inside the process; the whole process, timed outside.
  writeFileSync(
    join(dir, 'import.mjs'),
    `const t = performance.now();\nawait import(process.argv[2]);\nconsole.log(performance.now() - t);\n`,
  );
  const { pack } = installed;
  console.log(
    `tarball   ${pack.filename}: ${(pack.size / 1024).toFixed(0)} KiB packed, ${(pack.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${pack.entryCount} files`,
  );
  for (const specifier of ['ovnkit', 'ovnkit/nb', 'ovnkit/codegen']) {
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
  rmSync(dir, { recursive: true, force: true });
}
