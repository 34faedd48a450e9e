import type { FigureOptions, FigureRow } from './figure-row.ts';

/**
 * Runs one figure inside the child process the runner started for it and sends its rows back over IPC. A figure
 * that throws still answers, with the error as its note, so one broken piece never hides the other figures.
 */
export function runFigure(
  fallback: { readonly figure: string; readonly metric: string; readonly target: string },
  measure: (options: FigureOptions) => Promise<FigureRow[]>,
): void {
  const options: FigureOptions = {
    quick: process.env.BENCH_QUICK === '1',
    profileDir: process.env.BENCH_PROFILE_DIR === '' ? undefined : process.env.BENCH_PROFILE_DIR,
  };
  measure(options)
    .catch((error: unknown): FigureRow[] => {
      const reason = error instanceof Error ? error.message : String(error);
      return [
        {
          figure: fallback.figure,
          metric: fallback.metric,
          unit: '',
          value: null,
          baseline: null,
          ratio: null,
          target: fallback.target,
          met: null,
          note: `not measured: ${reason.split('\n')[0] ?? reason}`,
        },
      ];
    })
    .then((rows) => {
      if (process.send === undefined) {
        console.log(JSON.stringify(rows, null, 2));
        process.exit(0);
      }
      process.send({ type: 'rows', rows }, () => process.exit(0));
    })
    .catch(() => process.exit(1));
}
