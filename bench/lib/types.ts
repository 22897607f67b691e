/**
 * The shapes every workload reports: figures (a measured quantity with all
 * its samples), ratios against targets, and rows that were skipped.
 * @module
 */

/** One measured quantity: all samples and their median. */
export interface Figure {
  /** Stable identifier, e.g. `W1a.ovnkit`. */
  readonly id: string;
  /** The workload, e.g. `W1a`. */
  readonly workload: string;
  /** Who was measured, e.g. `ovnkit (connectDatabase + transact builder)`. */
  readonly subject: string;
  /** The unit of `samples` and `median`, e.g. `LSP/s`, `ms`, `B/row`. */
  readonly unit: string;
  /** Whether a larger value is better. */
  readonly higherIsBetter: boolean;
  /** Every sample, in the order measured. */
  readonly samples: readonly number[];
  /** The median of `samples`. */
  readonly median: number;
  /** Extra context (sizes, server, process placement). */
  readonly note?: string | undefined;
  /**
   * For a client-CPU figure (`…cpu`, µs per operation): the id of the
   * throughput or time figure it was measured with, sample for sample.
   */
  readonly cpuOf?: string | undefined;
}

/** The spread of the per-repetition ratios of two figures measured in the same repetitions. */
export interface PairedRatio {
  /** numerator sample ÷ denominator sample, per repetition, in order. */
  readonly samples: readonly number[];
  /** Their median: what `met` is judged on. */
  readonly median: number;
  /** The smallest per-repetition ratio. */
  readonly min: number;
  /** The largest. */
  readonly max: number;
}

/** A comparison of two figures (or a figure and an absolute limit) against a target. */
export interface Ratio {
  /** Stable identifier, e.g. `W1a ovnkit/raw-seq`. */
  readonly id: string;
  /** The workload. */
  readonly workload: string;
  /** What the ratio means, in words. */
  readonly label: string;
  /** The numerator figure id (or the figure compared with an absolute limit). */
  readonly numerator: string;
  /** The denominator figure id; absent for an absolute limit. */
  readonly denominator?: string | undefined;
  /** The measured value: numerator median ÷ denominator median (or the figure's median). */
  readonly value: number;
  /**
   * The per-repetition ratios, when both figures have one sample per
   * repetition (subjects interleaved within each repetition); `met` is then
   * judged on their median rather than on `value`.
   */
  readonly paired?: PairedRatio | undefined;
  /** What was measured about a miss (or a met target), in words. */
  readonly note?: string | undefined;
  /** The target value (absent: a ratio shown for context, without a target). */
  readonly target?: number | undefined;
  /** `>=`: value must be at least the target; `<=`: at most (absent with the target). */
  readonly comparison?: '>=' | '<=' | undefined;
  /** Whether the target is met (absent with the target). */
  readonly met?: boolean | undefined;
}

/** A measurement that did not run. */
export interface Skipped {
  /** The workload. */
  readonly workload: string;
  /** What would have been measured. */
  readonly subject: string;
  /** Why it did not run. */
  readonly reason: string;
}

/** What one workload produced. */
export interface WorkloadResult {
  /** The workload's identifier, e.g. `W1`. */
  readonly id: string;
  /** A one-line description with the sizes used. */
  readonly title: string;
  /** Measured figures. */
  readonly figures: Figure[];
  /** Ratios with targets. */
  readonly ratios: Ratio[];
  /** Rows that were skipped. */
  readonly skipped: Skipped[];
  /** Wall time of the whole workload, in seconds. */
  wallSeconds: number;
  /** The machine's 1/5/15-minute load averages when the workload started. */
  loadAverageStart?: readonly number[];
  /** … and when it ended. */
  loadAverageEnd?: readonly number[];
}

/** The run's settings, shared by every workload. */
export interface BenchContext {
  /** Small sizes and one repetition. */
  readonly quick: boolean;
  /** How many times each measurement is repeated. */
  readonly reps: number;
  /** The repository root. */
  readonly root: string;
  /** Progress output (stderr). */
  log(message: string): void;
}

/** A workload: runs its measurements and returns them. */
export interface Workload {
  /** `W1` … `W7`. */
  readonly id: string;
  /** Run it. Throws when the workload breaks (wrong counts, errors). */
  run(ctx: BenchContext): Promise<WorkloadResult>;
}
