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
