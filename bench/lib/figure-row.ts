/** One line of the benchmark table; `null` where a figure has no such value (or could not be measured). */
export interface FigureRow {
  /** Figure number and name, e.g. `1 engine overhead`. */
  readonly figure: string;
  /** What `value` measures, e.g. `wall time over baseline`. */
  readonly metric: string;
  readonly unit: string;
  /** Median over the rounds (or the single measurement where a figure has one). */
  readonly value: number | null;
  /** Lowest and highest round, beside the median. */
  readonly range?: { readonly min: number; readonly max: number; readonly rounds: number };
  readonly baseline: number | null;
  /** What the baseline is, e.g. `3 direct calls through crewd's model client`. */
  readonly baselineLabel?: string;
  /** value / baseline, where that means something. */
  readonly ratio: number | null;
  /** Human-readable, e.g. `<= 2 ms`. */
  readonly target: string;
  /** Whether the target was met; `null` when there is no target or no value. */
  readonly met: boolean | null;
  readonly note?: string;
}

/** Rows for a figure that could not run, so the table still shows it and says why. */
export function unavailableRow(figure: string, metric: string, target: string, reason: string): FigureRow {
  return {
    figure,
    metric,
    unit: '',
    value: null,
    baseline: null,
    ratio: null,
    target,
    met: null,
    note: reason,
  };
}

/** Options every figure gets from the runner. */
export interface FigureOptions {
  /** A short smoke run: fewer rounds, shorter windows. */
  readonly quick: boolean;
  /** When set, crewd servers run with `--cpu-prof` and write profiles here. */
  readonly profileDir: string | undefined;
}
