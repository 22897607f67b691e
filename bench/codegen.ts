/**
 * W5: code generation speed. Generates NB 7.19.0 (39 tables, with OVN's docs)
 * in a new process (cold: includes loading ts-morph) and in this process
 * (warm), and all 13 fixture schemas. Prints the medians of 3 runs; the target
 * is ≤3 s for NB 7.19.0. Timings are reported, never asserted.
 *
 * Run: npm run bench:codegen
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from '../codegen/index.js';

const SCHEMAS = 'test/fixtures/schemas';
const DOCS = readFileSync('schema/ovn-nb.xml', 'utf8');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function cold(): number {
  const script = `
    const t0 = performance.now();
    const { generate } = await import('./codegen/index.ts');
    const { readFileSync } = await import('node:fs');
    const files = generate({
      schema: readFileSync('${SCHEMAS}/ovn-nb-7.19.0.ovsschema', 'utf8'),
      docsXml: readFileSync('schema/ovn-nb.xml', 'utf8'),
    });
    if (files.size !== 41) throw new Error('expected 41 files');
    console.log(performance.now() - t0);
  `;
  const out = execFileSync(
    process.execPath,
    // `ovnkit/ovsdb`, which the generator imports, resolves to the repository's sources.
    ['--conditions=ovnkit-source', '--import', 'tsx', '--input-type=module', '--eval', script],
    { encoding: 'utf8' },
  );
  return Number(out.trim());
}

function warm(file: string, docs: boolean): number {
  const t0 = performance.now();
  generate({
    schema: readFileSync(join(SCHEMAS, file), 'utf8'),
    ...(docs ? { docsXml: DOCS } : {}),
  });
  return performance.now() - t0;
}

const files = readdirSync(SCHEMAS).filter((f) => f.endsWith('.ovsschema'));
const coldRuns = [cold(), cold(), cold()];
warm('ovn-nb-7.19.0.ovsschema', true);
const warmRuns = [0, 1, 2].map(() => warm('ovn-nb-7.19.0.ovsschema', true));
const allRuns = [0, 1, 2].map(() =>
  files.reduce((sum, f) => sum + warm(f, f.startsWith('ovn-nb')), 0),
);
const rows = [
  ['NB 7.19.0, new process (load ts-morph + generate)', median(coldRuns)],
  ['NB 7.19.0, warm', median(warmRuns)],
  [`all ${files.length} schemas, warm`, median(allRuns)],
] as const;
for (const [what, ms] of rows) console.log(`${what.padEnd(52)} ${ms.toFixed(0).padStart(6)} ms`);
console.log(
  `target: NB 7.19.0 ≤ 3000 ms (cold ratio to target ${(median(coldRuns) / 3000).toFixed(2)})`,
);
