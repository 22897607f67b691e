/**
 * Every command of `ovn-nbctl --help` has a row in the coverage table of
 * docs/nb-dsl.md that maps it to DSL functions really exported by a module
 * of src/nb, to generic reads and writes of the transaction (methods of
 * `NbTxn`, `Nb` or the transaction builder), or that says why it is out of
 * scope; and the table names no command ovn-nbctl does not have.
 */

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { Nb } from '../../src/nb/nb.js';
import { NbTxn } from '../../src/nb/txn.js';
import { TransactionBuilder } from '../../src/transactions/builder.js';

const run = promisify(execFile);

/** The commands `ovn-nbctl --help` lists (not the table reference list of the database commands, nor the options). */
function helpCommands(help: string): string[] {
  const out = new Set<string>();
  let skip = false;
  for (const line of help.split('\n')) {
    if (line.startsWith('Database commands may reference')) skip = true;
    else if (line.startsWith('Synchronization command')) skip = false;
    else if (line.startsWith('Options:')) break;
    const m = /^ {2}([a-z][a-z0-9-]*)(?: |$)/.exec(line);
    if (!skip && m) out.add(m[1]!);
  }
  return [...out].sort();
}

/** The coverage table: command → its mapping cell. */
function coverageTable(doc: string): Map<string, string> {
  const start = doc.indexOf('## Coverage of ovn-nbctl');
  expect(start, 'docs/nb-dsl.md has a "Coverage of ovn-nbctl" section').toBeGreaterThan(0);
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const table = new Map<string, string>();
  for (const m of section.matchAll(/^\| `ovn-nbctl ([a-z0-9-]+)` \| (.+) \|$/gm)) {
    expect(table.has(m[1]!), `one row for ${m[1]}`).toBe(false);
    table.set(m[1]!, m[2]!);
  }
  return table;
}

/** The names of the functions the modules of src/nb export. */
async function exportedFunctions(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const file of readdirSync('src/nb')) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const mod = (await import(`../../src/nb/${file.replace(/\.ts$/, '.js')}`)) as Record<
      string,
      unknown
    >;
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === 'function') names.add(name);
    }
  }
  return names;
}

const PROTOTYPES: Record<string, object> = {
  t: NbTxn.prototype,
  nb: Nb.prototype,
  tx: TransactionBuilder.prototype,
};

/** Why a mapping cell does not hold, or undefined when it does. */
function check(cell: string, exported: ReadonlySet<string>): string | undefined {
  if (/^out of scope: \S/.test(cell)) return undefined;
  // The names before the first parenthesis (what follows explains).
  const head = cell.split(' (')[0]!;
  const names = [...head.matchAll(/`([A-Za-z_][\w.]*)`/g)].map((m) => m[1]!);
  if (names.length === 0) return 'names no function';
  for (const name of names) {
    const dot = name.indexOf('.');
    if (dot >= 0) {
      const proto = PROTOTYPES[name.slice(0, dot)];
      const method = name.slice(dot + 1);
      if (proto === undefined) return `${name}: unknown receiver`;
      if (typeof (proto as Record<string, unknown>)[method] !== 'function')
        return `${name} is not a method`;
    } else if (!cell.startsWith('generic: ') && !exported.has(name)) {
      return `${name} is not exported by a module of src/nb`;
    } else if (cell.startsWith('generic: ')) {
      return `${name}: a generic mapping names methods (t.…, nb.…, tx.…)`;
    }
  }
  return undefined;
}

describe('ovn-nbctl coverage (docs/nb-dsl.md)', () => {
  let commands: string[];
  let table: Map<string, string>;
  let exported: Set<string>;
  beforeAll(async () => {
    const { stdout } = await run('ovn-nbctl', ['--help']);
    commands = helpCommands(stdout);
    table = coverageTable(readFileSync('docs/nb-dsl.md', 'utf8'));
    exported = await exportedFunctions();
  });

  it('reads the commands of ovn-nbctl --help', () => {
    // ovn-nbctl 23.03 lists 113; fewer means the parser lost some.
    expect(commands.length).toBeGreaterThanOrEqual(113);
    for (const c of ['init', 'ls-add', 'lsp-get-up', 'copp-add', 'set-ssl', 'wait-until', 'sync'])
      expect(commands).toContain(c);
    expect(commands).not.toContain('by');
  });

  it('every command maps to exported DSL functions, generic operations, or is out of scope', () => {
    const problems: string[] = [];
    let dsl = 0;
    let generic = 0;
    let outOfScope = 0;
    for (const c of commands) {
      const cell = table.get(c);
      if (cell === undefined) {
        problems.push(`${c}: no row`);
        continue;
      }
      const why = check(cell, exported);
      if (why !== undefined) problems.push(`${c}: ${why}`);
      else if (cell.startsWith('out of scope')) outOfScope++;
      else if (cell.startsWith('generic: ')) generic++;
      else dsl++;
    }
    const covered = dsl + generic + outOfScope;
    console.log(
      `ovn-nbctl coverage: ${covered}/${commands.length} commands (${dsl} DSL functions, ${generic} generic, ${outOfScope} out of scope)`,
    );
    expect(problems).toEqual([]);
    expect(covered).toBe(commands.length);
  });

  it('the table names no command ovn-nbctl does not have', () => {
    expect([...table.keys()].filter((c) => !commands.includes(c))).toEqual([]);
  });

  it('the check fails for a function that is not exported, a method that does not exist, and an empty reason', () => {
    expect(check('`lspGetUp`', exported)).toBeUndefined();
    expect(check('`lspGetUpp`', exported)).toContain('not exported');
    expect(check('generic: `t.nosuch`', exported)).toContain('not a method');
    expect(check('generic: `lsAdd`', exported)).toContain('generic');
    expect(check('out of scope: ', exported)).toBe('names no function');
    expect(check('out of scope: a daemon option', exported)).toBeUndefined();
    expect(check('`lsAdd` (`notAFunction` is only explained)', exported)).toBeUndefined();
  });
});
