/**
 * Our verdict on match expressions against OVN's own parser (OVN 23.03).
 *
 * A corpus of a few thousand matches, enumerated over every symbol of the
 * catalogue (each kind: strings, integers, addresses, subfields,
 * predicates; constants of every format, too wide by one bit, masked, in
 * sets; every operator; bit selections in and out of range; fields alone
 * and under `!`; symbols the release lacks) plus random ones (fast-check,
 * fixed seed), is written as Logical_Flows of a real SB ovsdb-server.
 * `ovn-trace` reads every Logical_Flow and parses its match with OVN's
 * symbol table (`expr_parse_string`, the parser ovn-controller uses),
 * logging `<match>: parsing expression failed (<why>)` for each one it
 * rejects. Each match's verdict there must equal ours: `parseMatch`
 * (accepted, or MatchSyntaxError / InvalidMatchError) and, for the matches
 * the builders can express, `match.*` + `formatMatch` (accepted with the
 * same text, or InvalidMatchError). Checks run with `ovnRelease: '23.03'`.
 */

import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatMatch,
  InvalidMatchError,
  MATCH_FIELDS,
  type MatchExpr,
  type MatchFieldSpec,
  type MatchOperator,
  MatchSyntaxError,
  type MatchValueInput,
  match,
  parseMatch,
} from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../src/testing/index.js';

const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';
const OPTIONS = { ovnRelease: '23.03' } as const;

/** A corpus entry: OVN text, and how the builders make it (when they can). */
interface Case {
  readonly text: string;
  readonly build?: () => MatchExpr;
}

/** A value: its builder input and its text. */
interface Value {
  readonly input: MatchValueInput;
  readonly text: string;
}

const num = (n: bigint): Value =>
  n <= BigInt(Number.MAX_SAFE_INTEGER)
    ? { input: Number(n), text: String(n) }
    : { input: match.int(`0x${n.toString(16)}`), text: `0x${n.toString(16)}` };
const addr = (text: string): Value => ({ input: match.addr(text), text });
const str = (s: string): Value => ({ input: match.str(s), text: JSON.stringify(s) });
const PG: Value = { input: match.portGroup('pg1'), text: '@pg1' };
const AS: Value = { input: match.addressSet('as_one'), text: '$as_one' };

/** The constants tried against every integer field. */
const CONSTANTS: readonly Value[] = [
  addr('10.0.0.1'),
  addr('10.0.0.0/8'),
  addr('fd00::1'),
  addr('fd00::/64'),
  addr('00:00:00:00:00:01'),
  addr('00:00:00:00:00:00/ff:ff:00:00:00:00'),
  str('x'),
  PG,
  AS,
];

/** Matches written as text only (the builders have no way to say them). */
const TEXT_ONLY_VALUES = ['1/1', '0/0x3', '0x1/0xff', '10.0.0.0/0.0.0.255', '::1/::1'];

function comparison(
  field: string,
  op: MatchOperator,
  value: Value | readonly Value[],
  negated = false,
): Case {
  const rhs = Array.isArray(value)
    ? `{${(value as readonly Value[]).map((v) => v.text).join(', ')}}`
    : (value as Value).text;
  const text = `${field} ${op} ${rhs}`;
  const input = Array.isArray(value)
    ? (value as readonly Value[]).map((v) => v.input)
    : (value as Value).input;
  const build = () => {
    const e = match.compare(field as string, op, input);
    return negated ? match.not(e) : e;
  };
  return { text: negated ? `!(${text})` : text, build };
}

function alone(field: string, negated: boolean): Case {
  return {
    text: negated ? `!${field}` : field,
    build: () => (negated ? match.not(match.field(field as string)) : match.field(field as string)),
  };
}

function casesFor(name: string, spec: MatchFieldSpec): Case[] {
  const out: Case[] = [];
  if (spec.kind === 'string') {
    const lp = str('lp1');
    out.push(
      comparison(name, '==', lp),
      comparison(name, '!=', lp),
      comparison(name, '==', lp, true),
      comparison(name, '!=', lp, true),
      comparison(name, '==', [lp, str('lp 2')]),
      comparison(name, '!=', [lp, str('lp 2')], true),
      comparison(name, '==', PG),
      comparison(name, '==', num(5n)),
      comparison(name, '==', AS),
      comparison(name, '==', addr('10.0.0.1')),
      comparison(name, '==', [lp, PG]),
      comparison(name, '<', lp),
      alone(name, false),
      { text: `${name}[0] == 1` },
      { text: `${name} == {"a", 1}` },
    );
    return out;
  }
  const w = spec.width;
  const max = (1n << BigInt(w)) - 1n;
  out.push(
    comparison(name, '==', num(0n)),
    comparison(name, '==', num(1n)),
    comparison(name, '==', num(2n)),
    comparison(name, '==', num(max)),
    comparison(name, '==', num(max + 1n)),
    comparison(name, '!=', num(1n)),
    comparison(name, '==', num(1n), true),
    comparison(name, '!=', num(1n), true),
    comparison(name, '!=', num(0n), true),
    comparison(name, '<', num(1n)),
    comparison(name, '>=', num(max)),
    comparison(name, '<=', num(1n), true),
    comparison(name, '==', [num(0n), num(1n)]),
    comparison(name, '!=', [num(0n), num(1n)]),
    comparison(name, '<', [num(1n)]),
    alone(name, false),
    alone(name, true),
    comparison(`${name}[0]`, '==', num(1n)),
    comparison(`${name}[${w - 1}]`, '==', num(1n)),
    comparison(`${name}[${w}]`, '==', num(1n)),
    comparison(`${name}[0..${w - 1}]`, '==', num(1n)),
    comparison(`${name}[1..0]`, '==', num(1n)),
    alone(`${name}[0]`, false),
    alone(`${name}[0]`, true),
  );
  for (const v of CONSTANTS) out.push(comparison(name, '==', v));
  out.push(comparison(name, '<', addr('10.0.0.0/8')));
  out.push(comparison(name, '==', [addr('10.0.0.1'), str('x')]));
  for (const t of TEXT_ONLY_VALUES) {
    out.push({ text: `${name} == ${t}` }, { text: `${name} > ${t}` });
  }
  if (w > 1) {
    out.push(comparison(`${name}[1..${w - 1}]`, '>', num(0n)));
    out.push(alone(`${name}[0..1]`, false), alone(`${name}[0..1]`, true));
  }
  return out;
}

/** Syntax-level cases around `!`, sets and booleans. */
const SYNTAX: readonly Case[] = [
  { text: '!tcp.dst == 80' },
  { text: '!!ip4.mcast' },
  { text: '!(!ip4.mcast)' },
  { text: '!(!ip4)' },
  { text: '!(!(ip4 && tcp))' },
  { text: '!(ip4 && tcp)' },
  { text: '!(ip4.mcast || ct.new)' },
  { text: 'tcp.dst == {}' },
  { text: 'tcp.dst == {80 443,}' },
  { text: 'ip4 && (tcp || udp) && !ct.new' },
  { text: '!(inport == "a" || inport == "b")' },
  { text: '!(inport != "a" && outport != "b")' },
  { text: '1' },
  { text: '!0' },
  { text: '(1)' },
  { text: 'ip4 && 0' },
];

/** Random comparisons over every symbol: random constants and operators, perhaps negated. */
function randomCases(): Case[] {
  const names = Object.keys(MATCH_FIELDS);
  const constant = fc.oneof(
    fc
      .bigInt({ min: 0n, max: (1n << 130n) - 1n })
      .chain((n) => fc.nat(130).map((bits) => n >> BigInt(bits))),
    fc.ipV4().map((a) => a),
    fc.ipV6(),
    fc
      .array(fc.nat(255), { minLength: 6, maxLength: 6 })
      .map((b) => b.map((x) => x.toString(16).padStart(2, '0')).join(':')),
    fc.tuple(fc.ipV4(), fc.nat(32)).map(([a, l]) => `${a}/${l}`),
    fc.tuple(fc.nat(255), fc.nat(0xffff)).map(([v, m]) => `${v}/${m}`),
  );
  const arb = fc.record({
    name: fc.constantFrom(...names),
    bits: fc.option(fc.tuple(fc.nat(130), fc.nat(8)), { freq: 3 }),
    op: fc.constantFrom<MatchOperator>('==', '!=', '<', '<=', '>', '>='),
    value: constant,
    negated: fc.boolean(),
  });
  return fc
    .sample(arb, { numRuns: 400, seed: 20_230_301 })
    .map(({ name, bits, op, value, negated }) => {
      const field = bits === null ? name : `${name}[${bits[0]}..${bits[0] + bits[1]}]`;
      const v = typeof value === 'bigint' ? String(value) : value;
      const text = `${field} ${op} ${v}`;
      return { text: negated ? `!(${text})` : text };
    });
}

function buildCorpus(): Case[] {
  const cases: Case[] = [];
  for (const [name, spec] of Object.entries(MATCH_FIELDS) as [string, MatchFieldSpec][]) {
    cases.push(...casesFor(name, spec));
  }
  cases.push(...SYNTAX, ...randomCases());
  return cases;
}

type Verdict = { ok: true; text?: string } | { ok: false; reason: string };

function verdict(
  f: () => string | undefined,
  kinds: readonly (new (...a: never[]) => Error)[],
): Verdict {
  try {
    const text = f();
    return text === undefined ? { ok: true } : { ok: true, text };
  } catch (e) {
    if (kinds.some((k) => e instanceof k)) return { ok: false, reason: (e as Error).message };
    throw e;
  }
}

/** Run ovn-trace against the SB; returns its stderr. */
function runOvnTrace(remote: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('ovn-trace', [`--db=${remote}`, '--minimal', 'sw0', 'inport == "lp1"'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.stdout.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(stderr);
    });
  });
}

describe('match verdicts against OVN 23.03 (ovn-trace)', () => {
  let server: OvsdbServerHandle;
  let sb: OvsdbConnection;
  const corpus = buildCorpus();
  const texts = [...new Set(corpus.map((c) => c.text))];
  /** OVN's verdict: the error of each rejected match. */
  const ovnErrors = new Map<string, string>();
  let stderr = '';

  beforeAll(async () => {
    server = await startOvsdbServer({ schemaPath: SB_SCHEMA });
    sb = await connect(server.unixRemote);
    await sb.transact('OVN_Southbound', [
      {
        op: 'insert',
        table: 'Datapath_Binding',
        row: { tunnel_key: 1, external_ids: ['map', [['name', 'sw0']]] },
        'uuid-name': 'sw0',
      },
      {
        op: 'insert',
        table: 'Datapath_Binding',
        row: { tunnel_key: 2, external_ids: ['map', [['name', 'corpus']]] },
        'uuid-name': 'corpus',
      },
      {
        op: 'insert',
        table: 'Port_Binding',
        row: { logical_port: 'lp1', tunnel_key: 1, datapath: ['named-uuid', 'sw0'] },
      },
      { op: 'insert', table: 'Port_Group', row: { name: 'pg1', ports: 'lp1' } },
      { op: 'insert', table: 'Address_Set', row: { name: 'as_one', addresses: '1' } },
      // The corpus lives on a datapath nothing is traced through: parsed, never evaluated.
      ...texts.map((text, i) => ({
        op: 'insert' as const,
        table: 'Logical_Flow',
        row: {
          logical_datapath: ['named-uuid', 'corpus'] as const,
          pipeline: 'ingress',
          table_id: 0,
          priority: i % 65536,
          match: text,
          actions: 'next;',
        },
      })),
    ]);
    stderr = await runOvnTrace(server.unixRemote);
    for (const line of stderr.split('\n')) {
      const m = /\|ovntrace\|WARN\|(.*?): parsing expression failed \((.*)\)$/.exec(line);
      if (m !== null) ovnErrors.set(m[1]!, m[2]!);
    }
  });

  afterAll(async () => {
    sb?.close();
    await server?.stop();
  });

  it('ovn-trace parsed the corpus: every failure names a corpus match, and nothing else failed', () => {
    expect(texts.length).toBeGreaterThan(1000);
    for (const text of ovnErrors.keys()) expect(texts).toContain(text);
    // The canaries: OVN's verdict on the examples.
    expect(ovnErrors.get('tcp.dst == "x"')).toContain(
      'Integer field tcp.dst is not compatible with string constant',
    );
    expect(ovnErrors.get('ip4.src == fd00::1')).toContain(
      '128-bit constant is not compatible with 32-bit field ip4.src',
    );
    expect(ovnErrors.has('tcp.dst == 65535')).toBe(false);
    expect(stderr).not.toContain('match annotation failed');
    // Both verdicts are well represented.
    expect(ovnErrors.size).toBeGreaterThan(texts.length / 4);
    expect(texts.length - ovnErrors.size).toBeGreaterThan(texts.length / 4);
  });

  it('parseMatch accepts exactly what OVN accepts', () => {
    const mismatches: string[] = [];
    for (const text of texts) {
      const ours = verdict(() => {
        parseMatch(text, OPTIONS);
        return undefined;
      }, [MatchSyntaxError, InvalidMatchError]);
      const ovn = ovnErrors.get(text);
      if (ours.ok !== (ovn === undefined)) {
        mismatches.push(
          `${text}\n    ours: ${ours.ok ? 'accepted' : ours.reason}\n    OVN:  ${ovn ?? 'accepted'}`,
        );
      }
    }
    expect(mismatches, mismatches.join('\n')).toEqual([]);
  });

  it('the builders accept exactly what OVN accepts, writing the same text', () => {
    const mismatches: string[] = [];
    let built = 0;
    for (const c of corpus) {
      if (c.build === undefined) continue;
      built++;
      const ours = verdict(() => formatMatch(c.build!(), OPTIONS), [InvalidMatchError]);
      const ovn = ovnErrors.get(c.text);
      if (ours.ok && ours.text !== c.text) {
        mismatches.push(`${c.text}\n    ours wrote: ${ours.text}`);
      } else if (ours.ok !== (ovn === undefined)) {
        mismatches.push(
          `${c.text}\n    ours: ${ours.ok ? 'accepted' : ours.reason}\n    OVN:  ${ovn ?? 'accepted'}`,
        );
      }
    }
    expect(built).toBeGreaterThan(1000);
    expect(mismatches, mismatches.join('\n')).toEqual([]);
  });
});
