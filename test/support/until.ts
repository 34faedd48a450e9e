/** Polls `check` every 20 ms until it holds; throws when it still does not after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((done) => setTimeout(done, 20));
  }
}
