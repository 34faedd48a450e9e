import { median } from './stats.ts';

/** The median time of each side in every round, in milliseconds. */
export interface AlternatedRounds {
  readonly measured: number[];
  readonly baseline: number[];
}

/**
 * Runs `measured` and `baseline` one after the other, `perRound` times a round, swapping which goes first each
 * time, so noise from another process lands on both sides alike; answers each round's medians. `warmup` pairs run
 * first, untimed.
 */
export async function alternateRounds(
  measured: () => Promise<void>,
  baseline: () => Promise<void>,
  counts: { readonly warmup: number; readonly rounds: number; readonly perRound: number },
): Promise<AlternatedRounds> {
  for (let index = 0; index < counts.warmup; index += 1) {
    await measured();
    await baseline();
  }
  const medians: AlternatedRounds = { measured: [], baseline: [] };
  for (let round = 0; round < counts.rounds; round += 1) {
    const measuredTimes: number[] = [];
    const baselineTimes: number[] = [];
    for (let index = 0; index < counts.perRound; index += 1) {
      const pair = [
        [measured, measuredTimes],
        [baseline, baselineTimes],
      ] as const;
      for (const [run, times] of index % 2 === 0 ? pair : [...pair].reverse()) {
        const started = performance.now();
        await run();
        times.push(performance.now() - started);
      }
    }
    medians.measured.push(median(measuredTimes));
    medians.baseline.push(median(baselineTimes));
  }
  return medians;
}
