import { describe, expect, it } from 'vitest';
import type { CrewDefinition } from '../../domain/crew.ts';
import type { Execution } from '../../domain/execution.ts';
import type { StoredExecutionEvent } from '../../store/store.ts';
import { executionProgress } from './mcp-progress.ts';
import type { ProgressUpdate } from './mcp-progress.ts';

const crew = {
  name: 'c',
  tasks: [{ name: 'first' }, { name: 'second' }],
  agents: new Map(),
} as unknown as CrewDefinition;

const running = {
  id: 'e1',
  state: 'RUNNING',
  outputs: [],
  pending: null,
  currentTask: null,
  lastStep: null,
  inputs: {},
} as unknown as Execution;

const event = (type: string, taskId: string): StoredExecutionEvent =>
  ({ type, data: { task_id: taskId } }) as unknown as StoredExecutionEvent;

describe('executionProgress', () => {
  it('counts tasks, half for a start, and never says a value twice or goes back', () => {
    const updates: ProgressUpdate[] = [];
    const progress = executionProgress(crew, (update) => updates.push(update));

    progress.started(running);
    progress.onEvent(event('task-start', 'first'));
    progress.onEvent(event('task-end', 'first'));
    progress.onEvent(event('task-start', 'second'));
    progress.onEvent(event('task-end', 'second'));
    // A task run again after a rejected review: nothing new to say.
    progress.onEvent(event('task-start', 'second'));
    progress.onEvent(event('step-end', 'second'));

    expect(updates).toEqual([
      { progress: 0, total: 2, message: 'Execution e1 is RUNNING' },
      { progress: 0.5, total: 2, message: 'Task first started (1 of 2)' },
      { progress: 1, total: 2, message: 'Task first finished (1 of 2)' },
      { progress: 1.5, total: 2, message: 'Task second started (2 of 2)' },
      { progress: 2, total: 2, message: 'Task second finished (2 of 2)' },
    ]);
  });

  it('says nothing for a task the crew does not have', () => {
    const updates: ProgressUpdate[] = [];
    executionProgress(crew, (update) => updates.push(update)).onEvent(event('task-start', 'other'));
    expect(updates).toEqual([]);
  });
});
