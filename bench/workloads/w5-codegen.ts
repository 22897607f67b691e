/**
 * W5: code generation for OVN NB 7.19.0 with its documentation: the wall
 * time of the CLI (`codegen/cli.ts` through tsx) in a fresh process,
 * writing the 41 files to a temporary directory (target ≤ 3 s), and
 * `generate()` in this process once warm.
 * @module
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { emptyResult, figure, limit } from '../lib/results.js';
import { repeat } from '../lib/stats.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';

const run = promisify(execFile);
const SCHEMA = 'test/fixtures/schemas/ovn-nb-7.19.0.ovsschema';
const DOCS = 'schema/ovn-nb.xml';
const FILES = 41;

/** W5. */
export const w5: Workload = {
  id: 'W5',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const result = emptyResult('W5', `codegen of NB 7.19.0 with docs (${SCHEMA})`);
    const cold = await repeat(ctx.reps, async (rep) => {
      const out = mkdtempSync(join(tmpdir(), 'ovnkit-bench-codegen-'));
      try {
        const t0 = performance.now();
        await run(
          process.execPath,
          [
            // `ovnkit/ovsdb`, which the generator imports, resolves to the repository's sources.
            '--conditions=ovnkit-source',
            '--import',
            'tsx',
            'codegen/cli.ts',
            '--schema',
            SCHEMA,
            '--docs',
            DOCS,
            '--out',
            out,
          ],
          { cwd: ctx.root },
        );
        const ms = performance.now() - t0;
        const n = readdirSync(out).length;
        if (n !== FILES) throw new Error(`codegen CLI wrote ${n} files, expected ${FILES}`);
        ctx.log(`W5 rep ${rep + 1}/${ctx.reps} CLI, new process: ${ms.toFixed(0)} ms`);
        return ms;
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
    const { generate } = await import('../../codegen/index.js');
    const schema = readFileSync(join(ctx.root, SCHEMA), 'utf8');
    const docsXml = readFileSync(join(ctx.root, DOCS), 'utf8');
    generate({ schema, docsXml });
    const warm = await repeat(ctx.reps, async () => {
      const t0 = performance.now();
      const files = generate({ schema, docsXml });
      const ms = performance.now() - t0;
      if (files.size !== FILES)
        throw new Error(`generate() made ${files.size} files, expected ${FILES}`);
      return ms;
    });
    const coldF = figure('W5.cli', 'ovnkit-codegen CLI, new process (tsx), wall', 'ms', cold, {
      higherIsBetter: false,
    });
    const warmF = figure('W5.warm', 'generate() in process, warm', 'ms', warm, {
      higherIsBetter: false,
    });
    result.figures.push(coldF, warmF);
    result.ratios.push(limit('CLI wall ms', coldF, '<=', 3000));
    return result;
  },
};
