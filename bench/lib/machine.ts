/**
 * The machine and the versions a run measured on.
 * @module
 */

import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { libovsdbRevision } from '../peers/libovsdb.js';
import { PYTHON } from '../peers/ovsdbapp.js';

/** The machine and software versions of a run. */
export interface MachineInfo {
  /** Logical CPUs. */
  readonly cpus: number;
  /** CPU model name. */
  readonly model: string;
  /** Total memory, bytes. */
  readonly memoryBytes: number;
  /** 1/5/15-minute load averages. */
  readonly loadAverage: readonly number[];
  /** Versions of node, ovsdb-server, OVN, python, ovsdbapp, go and libovsdb (`null` when missing). */
  readonly versions: Readonly<Record<string, string | null>>;
}

function firstLine(cmd: string, args: readonly string[]): string | null {
  try {
    return (
      execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
        .trim()
        .split('\n')[0] ?? null
    );
  } catch {
    return null;
  }
}

/** The current load averages. */
export function loadAverage(): number[] {
  return loadavg().map((x) => Math.round(x * 100) / 100);
}

/** Collect the machine information. */
export function machineInfo(): MachineInfo {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    loadAverage: loadAverage(),
    versions: {
      node: process.version,
      ovsdbServer: firstLine('ovsdb-server', ['--version']),
      ovn: firstLine('ovn-nbctl', ['--version']),
      python: firstLine(PYTHON, ['--version']),
      ovsdbapp: firstLine(PYTHON, [
        '-c',
        'import importlib.metadata as m; print(m.version("ovsdbapp"))',
      ]),
      go: firstLine('go', ['version'])?.split(' ')[2] ?? null,
      libovsdb: libovsdbRevision(),
    },
  };
}
