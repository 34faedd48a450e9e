import { anyLogEntry } from '../../test/store/store-fixtures.ts';
import { describe, expect, it } from 'vitest';
import type { TaskOutput } from '../domain/task-output.ts';
import type { ExecutionChange } from '../store/store.ts';
import { mergeChanges } from './merge-changes.ts';

const now = new Date('2026-01-01T00:00:00.000Z');
const later = new Date('2026-01-01T00:00:01.000Z');
const output = { taskId: 'a', output: 'A' } as TaskOutput;

describe('mergeChanges', () => {
  it('keeps the first guard, appends events and webhooks in order, and lets later fields win', () => {
    const first: ExecutionChange = {
      executionId: 'e',
      fromStates: ['RUNNING'],
      appendOutput: output,
      patch: {
        currentTask: 'a',
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, successfulRequests: 1 },
      },
      events: [anyLogEntry('task-end', {})],
      outbox: [{ id: 'm1', kind: 'task', url: 'http://x', payload: {}, headers: {} }],
      now,
    };
    const second: ExecutionChange = {
      executionId: 'e',
      fromStates: ['PENDING'],
      state: 'SUCCESS',
      patch: { currentTask: null, result: 'A' },
      events: [anyLogEntry('execution-end', {})],
      outbox: [{ id: 'm2', kind: 'crew', url: 'http://x', payload: {}, headers: {} }],
      now: later,
    };

    const merged = mergeChanges(first, second);

    expect(merged.fromStates).toEqual(['RUNNING']);
    expect(merged.state).toBe('SUCCESS');
    expect(merged.appendOutput).toBe(output);
    expect(merged.patch).toEqual({ currentTask: null, result: 'A', usage: first.patch!.usage });
    expect(merged.events!.map((event) => event.type)).toEqual(['task-end', 'execution-end']);
    expect(merged.outbox!.map((message) => message.id)).toEqual(['m1', 'm2']);
    expect(merged.now).toBe(later);
  });

  it('refuses to merge two changes that each append an output', () => {
    const change: ExecutionChange = { executionId: 'e', fromStates: ['RUNNING'], appendOutput: output, now };
    expect(() => mergeChanges(change, change)).toThrow(/cannot be merged/);
  });
});
