import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../store/store-unavailable.ts';
import { backoffDelayMs } from '../domain/backoff.ts';
import { retryWhileUnavailable, storeOutageBackoff } from './retry-while-unavailable.ts';

const outage = (): StoreUnavailableError =>
  new StoreUnavailableError('unreachable', new Error('ECONNREFUSED'));

describe('retryWhileUnavailable', () => {
  it('tries again through an outage, as long as it lasts, and returns what the store answers', async () => {
    let attempts = 0;
    const heard: string[] = [];
    const value = await retryWhileUnavailable(
      () => (++attempts < 5 ? Promise.reject(outage()) : Promise.resolve('written')),
      { delayMs: () => 0, onUnavailable: (error) => heard.push(error.reason) },
    );
    expect(value).toBe('written');
    expect(attempts).toBe(5);
    expect(heard).toEqual(['unreachable', 'unreachable', 'unreachable', 'unreachable']);
  });

  it('throws any other error at once', async () => {
    let attempts = 0;
    const wrong = new Error('constraint');
    await expect(
      retryWhileUnavailable(() => (attempts++, Promise.reject(wrong)), { delayMs: () => 0 }),
    ).rejects.toBe(wrong);
    expect(attempts).toBe(1);
  });

  it('gives up with the store error once aborted', async () => {
    const controller = new AbortController();
    const waiting = retryWhileUnavailable(() => Promise.reject(outage()), {
      signal: controller.signal,
      delayMs: () => 3_600_000,
      onUnavailable: () => controller.abort(),
    });
    await expect(waiting).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('backs off from 50 ms to at most 2 s, less up to a quarter', () => {
    const delay = (attempt: number, random: number): number =>
      backoffDelayMs(attempt - 1, storeOutageBackoff, () => random);
    expect(delay(1, 0.999_999)).toBeCloseTo(50);
    expect(delay(3, 0.999_999)).toBeCloseTo(200);
    expect(delay(30, 0.999_999)).toBeCloseTo(2_000);
    expect(delay(30, 0)).toBe(1_500);
  });
});
