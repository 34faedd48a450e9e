import { describe, expect, it } from 'vitest';
import type { Execution, ExecutionState } from '../domain/execution.ts';
import { RecentExecutions } from './recent-executions.ts';

const execution = (
  id: string,
  state: ExecutionState,
  revision = 1,
  meta: Record<string, unknown> | null = null,
) => ({ id, state, revision, meta, outputs: [] }) as unknown as Execution;

describe('RecentExecutions', () => {
  it('drops the oldest beyond its capacity in bytes', () => {
    // About 75 bytes each: two fit.
    const cache = new RecentExecutions(200);
    cache.remember(execution('a', 'SUCCESS'));
    cache.remember(execution('b', 'PAUSED'));
    cache.remember(execution('c', 'RUNNING'));

    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.state).toBe('PAUSED');
    expect(cache.get('c')?.state).toBe('RUNNING');
  });

  it('drops the oldest beyond its capacity in entries, however small they are', () => {
    const cache = new RecentExecutions(1_000_000, 2);
    cache.remember(execution('a', 'SUCCESS'));
    cache.remember(execution('b', 'PAUSED'));
    cache.remember(execution('b', 'SUCCESS', 2));
    expect(cache.get('a')?.state).toBe('SUCCESS');
    cache.remember(execution('c', 'RUNNING'));

    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.state).toBe('SUCCESS');
    expect(cache.get('c')?.state).toBe('RUNNING');
  });

  it('keeps the latest revision it has seen of an execution', () => {
    const cache = new RecentExecutions(1000);
    cache.remember(execution('a', 'RUNNING', 3));
    cache.remember(execution('a', 'PENDING', 2));
    expect(cache.get('a')).toMatchObject({ state: 'RUNNING', revision: 3 });

    cache.remember(execution('a', 'PAUSED', 4));
    expect(cache.get('a')).toMatchObject({ state: 'PAUSED', revision: 4 });
  });

  it('counts an execution by its size, so large ones push out more, and keeps none larger than the whole budget', () => {
    const cache = new RecentExecutions(20_000);
    for (const id of ['a', 'b', 'c', 'd']) cache.remember(execution(id, 'SUCCESS'));
    cache.remember(execution('big', 'SUCCESS', 1, { blob: 'x'.repeat(4_000) }));
    expect(cache.get('big')).toBeDefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.bytes).toBeLessThanOrEqual(20_000);

    cache.remember(execution('bigger', 'SUCCESS', 1, { blob: 'x'.repeat(4_500) }));
    expect(cache.get('bigger')).toBeDefined();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.bytes).toBeLessThanOrEqual(20_000);

    cache.remember(execution('huge', 'SUCCESS', 1, { blob: 'x'.repeat(20_000) }));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('bigger')).toBeDefined();
  });
});
