/**
 * The shapes of the scaling bench (`bench/scale.ts`): the servers it
 * populates at each size and the series it measures against them. A series
 * is one curve per subject (a server, or a client against a server); new
 * rows are added by appending a {@link ScaleSeries} to the list in
 * `bench/scale.ts`.
 * @module
 */

import type { RawClient } from './raw-client.js';
import type { BenchServer, ServerKind } from './servers.js';

/** One switch of a populated database. */
export interface ScaleSwitch {
  readonly name: string;
  readonly uuid: string;
}

/** A server holding `n` Logical_Switch_Ports in `n / 250` switches, and a raw client on it. */
export interface ScaleServer {
  readonly kind: ServerKind;
  readonly n: number;
  readonly server: BenchServer;
  /** A raw client connected for the whole run (setup, timed requests). */
  readonly client: RawClient;
  /** The switches, in creation order. */
  readonly switches: readonly ScaleSwitch[];
  /** The number of the next port a sample may add (ports are named `lsp-<number>`). */
  nextPort: number;
}

/** One curve of a series: who is measured, against which populated server. */
export interface ScaleSubject {
  /** Short key, unique within the series (`ovsdb-server`, `ovnkit-server`, `ovnkit client`, …). */
  readonly key: string;
  /** Legend text. */
  readonly label: string;
  /** The populated server the sample runs against. */
  readonly server: ServerKind;
  /** Drawn dashed (the reference). */
  readonly reference?: boolean;
}

/** The run's settings, for the samples. */
export interface ScaleContext {
  /** Timed transactions per sample (commit series). */
  readonly txns: number;
  /** The repository root. */
  readonly root: string;
  /** Progress output (stderr). */
  log(message: string): void;
}

/** A measured quantity, one curve per subject, sampled at every size in every repetition. */
export interface ScaleSeries {
  /** Stable id (`commit-by-name`), the key in `scale.json`. */
  readonly id: string;
  readonly title: string;
  /** `µs/txn`, `ns/row`, `MB`, … */
  readonly unit: string;
  /** The chart it is drawn in; the series of one chart share the unit. */
  readonly chart: string;
  readonly subjects: readonly ScaleSubject[];
  /** Subject keys whose paired ratio (measured back to back) is reported at each size. */
  readonly compare?: readonly [numerator: string, denominator: string];
  /** One sample of `subject` against `s` (already populated). */
  sample(s: ScaleServer, subject: ScaleSubject, ctx: ScaleContext): Promise<number>;
}
