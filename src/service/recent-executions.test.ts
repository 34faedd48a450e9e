import { describe, expect, it } from 'vitest';
import type { Execution, ExecutionState } from '../domain/execution.ts';
import { RecentExecutions } from './recent-executions.ts';

const execution = (id: string, state: ExecutionState, revision = 1) => ({ id, state, revision }) as Execution;

describe('RecentExecutions', () => {
  it('drops the oldest beyond its capacity', () => {
    const cache = new RecentExecutions(2);
    cache.remember(execution('a', 'SUCCESS'));
    cache.remember(execution('b', 'PAUSED'));
    cache.remember(execution('c', 'RUNNING'));

    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.state).toBe('PAUSED');
    expect(cache.get('c')?.state).toBe('RUNNING');
  });

  it('keeps the latest revision it has seen of an execution', () => {
    const cache = new RecentExecutions(2);
    cache.remember(execution('a', 'RUNNING', 3));
    cache.remember(execution('a', 'PENDING', 2));
    expect(cache.get('a')).toMatchObject({ state: 'RUNNING', revision: 3 });

    cache.remember(execution('a', 'PAUSED', 4));
    expect(cache.get('a')).toMatchObject({ state: 'PAUSED', revision: 4 });
  });
});
