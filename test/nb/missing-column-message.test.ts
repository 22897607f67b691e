/**
 * The compiler's message when a program gives a DSL option whose column the
 * model lacks names the table, the column and the model's schema and
 * version (`test/types/nb-models.test-d.ts` checks that it is an error; this
 * runs `tsc` on such a program and reads the diagnostic).
 */

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, removeDir, scratchDir } from '../codegen/helpers.js';

const run = promisify(execFile);
const scratch = scratchDir('missing-column');
afterAll(() => removeDir(scratch));

/** `path` (from the repository root) as an import specifier from the scratch directory. */
const from = (path: string): string => relative(scratch, join(ROOT, path)).split('\\').join('/');

describe('a DSL option for a column the model lacks', () => {
  it('is a type error naming the table, the column and the model’s version', async () => {
    writeFileSync(
      join(scratch, 'program.ts'),
      `import { aclAdd, lrNatAdd, type NbTxn } from '${from('src/nb/index.js')}';
import type { NBTables as NB61 } from '${from('test/nb/fixtures/models/nb-6.1.0/index.js')}';
import type { NBTables as NB70 } from '${from('test/nb/fixtures/models/nb-7.0.0/index.js')}';

declare const t70: NbTxn<NB70>;
declare const t61: NbTxn<NB61>;
const acl = { direction: 'to-lport', priority: 1, match: 'ip4', action: 'drop' } as const;
aclAdd(t70, { switch: 'sw0' }, { ...acl, tier: 1 });
lrNatAdd(t61, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/24', gatewayPort: 'lrp0' });
`,
    );
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), include: ['./program.ts'] }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const output = await run(process.execPath, [tsc, '-p', join(scratch, 'tsconfig.json')], {
      cwd: ROOT,
    }).then(
      () => '',
      (e: { stdout?: string }) => e.stdout ?? '',
    );
    const errors = output.split('\n').filter((l) => l.includes('error TS'));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain(
      `Type 'number' is not assignable to type 'NotInModel<"ACL", "tier", "OVN_Northbound 7.0.0">'`,
    );
    expect(errors[1]).toContain(
      `is not assignable to type 'NotInModel<"NAT", "gateway_port", "OVN_Northbound 6.1.0">'`,
    );
  }, 120_000);
});
