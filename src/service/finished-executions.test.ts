import { describe, expect, it } from 'vitest';
import type { Execution, ExecutionState } from '../domain/execution.ts';
import { FinishedExecutions } from './finished-executions.ts';

const execution = (id: string, state: ExecutionState) => ({ id, state }) as Execution;

describe('FinishedExecutions', () => {
  it('keeps finished executions only, dropping the oldest beyond its capacity', () => {
    const cache = new FinishedExecutions(2);
    cache.offer(execution('running', 'RUNNING'));
    cache.offer(execution('paused', 'PAUSED'));
    cache.offer(execution('a', 'SUCCESS'));
    cache.offer(execution('b', 'FAILED'));
    cache.offer(execution('c', 'REVOKED'));

    expect(cache.get('running')).toBeUndefined();
    expect(cache.get('paused')).toBeUndefined();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.state).toBe('FAILED');
    expect(cache.get('c')?.state).toBe('REVOKED');
  });
});
