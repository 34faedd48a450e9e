import { describe, expect, it } from 'vitest';
import { exampleCrew, makeExecution, taskOutput } from '../../test/api/support/example-crew.ts';
import { StatusBodies } from './status-bodies.ts';
import { toStatusView } from './status-view.ts';

const startedAt = new Date('2025-01-01T10:00:00.000Z');
const at = (seconds: number) => new Date(startedAt.getTime() + seconds * 1000);
const viewAsJson = (execution: Parameters<typeof toStatusView>[0], now: Date): unknown =>
  JSON.parse(JSON.stringify(toStatusView(execution, exampleCrew, now)));

describe('StatusBodies', () => {
  it("moves only the running time of a started execution's body with the clock", () => {
    const bodies = new StatusBodies(() => exampleCrew);
    // A client's meta may hold the same key; only the top-level one moves.
    const running = makeExecution({
      id: 'running-1',
      state: 'RUNNING',
      currentTask: 'review',
      outputs: [taskOutput('research', 'R')],
      meta: { execution_time: 'client value' },
      startedAt,
    });

    const first = bodies.body(running, at(1.5));
    const later = bodies.body(running, at(12.25));

    expect(JSON.parse(first)).toEqual(viewAsJson(running, at(1.5)));
    expect(JSON.parse(later)).toEqual(viewAsJson(running, at(12.25)));
    expect(JSON.parse(later)).toMatchObject({
      execution_time: 12.25,
      meta: { execution_time: 'client value' },
    });
  });

  it('answers the same text for a finished execution and one not started yet', () => {
    const bodies = new StatusBodies(() => exampleCrew);
    const finished = makeExecution({
      id: 'done-1',
      state: 'SUCCESS',
      result: 'R',
      startedAt,
      finishedAt: at(3),
    });
    const pending = makeExecution({ id: 'pending-1', state: 'PENDING' });

    expect(bodies.body(finished, at(10))).toBe(bodies.body(finished, at(20)));
    expect(JSON.parse(bodies.body(finished, at(20)))).toEqual(viewAsJson(finished, at(20)));
    expect(JSON.parse(bodies.body(pending, at(5)))).toEqual(viewAsJson(pending, at(5)));
  });

  it('makes a new body for a new copy of the execution', () => {
    const bodies = new StatusBodies(() => exampleCrew);
    const running = makeExecution({ id: 'exec-1', state: 'RUNNING', startedAt });
    const finished = {
      ...running,
      state: 'SUCCESS' as const,
      result: 'Done',
      finishedAt: at(2),
      revision: 1,
    };

    expect(JSON.parse(bodies.body(running, at(1)))).toMatchObject({ state: 'RUNNING' });
    expect(JSON.parse(bodies.body(finished, at(3)))).toMatchObject({ state: 'SUCCESS', execution_time: 2 });
  });
});
