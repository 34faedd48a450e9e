/**
 * How long a test waits for something before calling it a hang: long, since a machine busy with other work can be
 * many times slower than a quiet one, and only a hang should reach it. Below vitest's test timeout.
 */
export const hangAfterMs = 60_000;

/**
 * Polls `check` every 20 ms until it holds; throws when it still does not after `timeoutMs`. The limit only turns
 * a hang into a failure: tests wait on the event itself, never on time passing. `failure` says what was missing.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = hangAfterMs,
  failure: () => string = () => 'condition not met in time',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(failure());
    await new Promise((done) => setTimeout(done, 20));
  }
}
