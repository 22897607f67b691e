/**
 * The ovsdbapp peer: Debian's `python3-ovsdbapp` run by `/usr/bin/python3`
 * (the distribution's interpreter, which has it) through
 * `bench/peers/ovsdbapp_bench.py`.
 * @module
 */

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runJson } from '../lib/child.js';

/** The interpreter with `python3-ovsdbapp`. */
export const PYTHON = '/usr/bin/python3';

/** What the Python script prints. */
export interface OvsdbappResult {
  /** Timed seconds. */
  readonly seconds: number;
  /** User + system CPU time of the Python process (all threads) over the timed section, s. */
  readonly cpuSeconds: number;
  /** Logical switch ports its IDL saw at the end. */
  readonly ports: number;
}

let available: { ok: true; version: string } | { ok: false; reason: string } | undefined;

/** Whether ovsdbapp can run here, and its version (or why not). */
export function ovsdbappStatus(): { ok: true; version: string } | { ok: false; reason: string } {
  if (available) return available;
  try {
    const version = execFileSync(
      PYTHON,
      [
        '-c',
        'import importlib.metadata as m, ovsdbapp.schema.ovn_northbound.impl_idl; print(m.version("ovsdbapp"))',
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    ).trim();
    available = { ok: true, version };
  } catch (e) {
    available = {
      ok: false,
      reason: `ovsdbapp not installed for ${PYTHON} (${(e as Error).message.split('\n')[0]})`,
    };
  }
  return available;
}

function script(root: string): string {
  return join(root, 'bench/peers/ovsdbapp_bench.py');
}

/** One transaction per port, each committed before the next. */
export function ovsdbappSequential(
  root: string,
  remote: string,
  sw: string,
  count: number,
): Promise<OvsdbappResult> {
  return runJson(PYTHON, [script(root), 'seq', remote, sw, String(count)]);
}

/** `batch` ports per transaction. */
export function ovsdbappBatched(
  root: string,
  remote: string,
  sw: string,
  count: number,
  batch: number,
): Promise<OvsdbappResult> {
  return runJson(PYTHON, [script(root), 'batch', remote, sw, String(count), String(batch)]);
}

/** Time to the IDL's first complete sync of the database. */
export function ovsdbappSync(root: string, remote: string, ports: number): Promise<OvsdbappResult> {
  return runJson(PYTHON, [script(root), 'sync', remote, String(ports)]);
}
