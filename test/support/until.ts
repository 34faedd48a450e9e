/**
 * Polls `check` every 20 ms until it holds; throws when it still does not after `timeoutMs`. The limit only turns
 * a hang into a failure: tests wait on the event itself, never on time passing. `failure` says what was missing.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  failure: () => string = () => 'condition not met in time',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(failure());
    await new Promise((done) => setTimeout(done, 20));
  }
}
