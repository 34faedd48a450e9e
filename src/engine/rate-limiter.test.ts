import { describe, expect, it } from 'vitest';
import { createRateLimiter, prefixedLimiter } from './rate-limiter.ts';

describe('rate limiter', () => {
  /** A limiter on a clock the test moves; its waits are recorded and pass the time at once. */
  function onTestClock(start = 1000) {
    let now = start;
    const waits: number[] = [];
    const limiter = createRateLimiter(
      () => now,
      (ms) => {
        waits.push(ms);
        now += ms;
        return Promise.resolve();
      },
    );
    return { limiter, waits, advance: (ms: number) => (now += ms) };
  }

  it('lets the first call through at once and spaces the next ones by 60/rpm seconds', async () => {
    const { limiter, waits, advance } = onTestClock();
    const signal = new AbortController().signal;

    await limiter.wait('agent', 3000, signal);
    expect(waits).toEqual([]);
    await limiter.wait('agent', 3000, signal);
    await limiter.wait('agent', 3000, signal);
    expect(waits).toEqual([20, 20]);

    // Time already passed counts: 15 ms later only 5 ms are left to wait.
    advance(15);
    await limiter.wait('agent', 3000, signal);
    expect(waits).toEqual([20, 20, 5]);
  });

  it('keeps keys apart and does not wait without a limit', async () => {
    const { limiter, waits } = onTestClock();
    const signal = new AbortController().signal;

    await limiter.wait('one', 60, signal);
    await limiter.wait('two', 60, signal);
    await limiter.wait('three', undefined, signal);
    await limiter.wait('three', undefined, signal);
    await limiter.wait('four', 0, signal);
    await limiter.wait('four', 0, signal);

    expect(waits).toEqual([]);
  });

  it('stops waiting with the abort reason', async () => {
    const limiter = createRateLimiter();
    const controller = new AbortController();
    await limiter.wait('agent', 1, controller.signal);
    const waiting = limiter.wait('agent', 1, controller.signal);
    const reason = new Error('stopped');

    controller.abort(reason);

    await expect(waiting).rejects.toBe(reason);
  });

  it('spaces the same agent of one execution through every view with its prefix, and keeps executions apart', async () => {
    const { limiter, waits } = onTestClock();
    const signal = new AbortController().signal;

    await prefixedLimiter(limiter, 'run-1:').wait('agent', 60, signal);
    await prefixedLimiter(limiter, 'run-2:').wait('agent', 60, signal);
    expect(waits).toEqual([]);
    // A later leg of run-1 (a new view) still waits for the first call's spacing.
    await prefixedLimiter(limiter, 'run-1:').wait('agent', 60, signal);
    expect(waits).toEqual([1000]);
  });

  it('still spaces busy keys after dropping those whose spacing has passed', async () => {
    const { limiter, waits, advance } = onTestClock();
    const signal = new AbortController().signal;
    for (let key = 0; key < 1500; key += 1) await limiter.wait(`old-${key}`, 60, signal);
    advance(2000);
    await limiter.wait('busy', 60, signal);
    for (let key = 0; key < 1500; key += 1) await limiter.wait(`new-${key}`, 60, signal);

    await limiter.wait('busy', 60, signal);
    await limiter.wait('old-1', 60, signal);

    expect(waits).toEqual([1000]);
  });
});
