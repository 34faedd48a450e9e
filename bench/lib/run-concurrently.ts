/** Runs `total` calls of `run`, `inFlight` at a time, and returns the elapsed milliseconds. */
export async function runConcurrently(
  total: number,
  inFlight: number,
  run: (index: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < total) {
      const index = next;
      next += 1;
      await run(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, worker));
  return performance.now() - started;
}

/**
 * Keeps `inFlight` calls of `run` going until `durationMs` has passed, lets the last ones finish, and returns how
 * many completed and the milliseconds that took: a round bounded in time, whatever the rate.
 */
export async function runFor(
  durationMs: number,
  inFlight: number,
  run: () => Promise<unknown>,
): Promise<{ completed: number; elapsedMs: number }> {
  let completed = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await run();
      completed += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { completed, elapsedMs: performance.now() - started };
}
