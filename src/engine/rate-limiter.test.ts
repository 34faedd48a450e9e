import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.ts';

describe('rate limiter', () => {
  it('lets the first call through at once and spaces the next ones by 60/rpm seconds', async () => {
    const limiter = createRateLimiter();
    const signal = new AbortController().signal;
    const startedAt = performance.now();

    await limiter.wait('agent', 3000, signal);
    const first = performance.now() - startedAt;
    await limiter.wait('agent', 3000, signal);
    await limiter.wait('agent', 3000, signal);

    expect(first).toBeLessThan(15);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(38);
  });

  it('keeps keys apart and does not wait without a limit', async () => {
    const limiter = createRateLimiter();
    const signal = new AbortController().signal;
    const startedAt = performance.now();

    await limiter.wait('one', 60, signal);
    await limiter.wait('two', 60, signal);
    await limiter.wait('three', undefined, signal);
    await limiter.wait('three', undefined, signal);

    expect(performance.now() - startedAt).toBeLessThan(100);
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
});
