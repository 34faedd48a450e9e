import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../src/domain/events.ts';
import type { FlowRunTag } from '../../src/domain/execution-log.ts';
import type { TaskOutput } from '../../src/domain/task-output.ts';
import { emptyUsage } from '../../src/domain/usage.ts';
import { eventRecord } from '../../src/service/event-records.ts';
import { readFlowCheckpoint } from '../../src/service/read-flow-checkpoint.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { NewExecutionEvent, Store } from '../../src/store/store.ts';
import { newExecution, t0, taskOutput } from '../store/store-fixtures.ts';

const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15, successfulRequests: 1 };

const started = (taskId: string) =>
  eventRecord.taskStarted({ type: 'task-start', taskId, agent: 'Scout', attempt: 1 });

const answered = (taskId: string, toolCalls: { id: string; name: string; input: unknown }[] = []) =>
  eventRecord.modelCallEnded({
    type: 'model-call-end',
    taskId,
    attempt: 1,
    answer: { text: `answer of ${taskId}`, toolCalls },
    model: 'openai/gpt-4o-mini',
    usage,
    durationMs: 1,
  });

const toolResult = (taskId: string, toolCallId: string) => {
  const step: AgentStep = {
    taskId,
    agent: 'Scout',
    prompt: 'p',
    thought: '',
    tool: 'record_visit',
    toolInput: {},
    result: 'recorded',
    toolCallId,
  };
  return eventRecord.stepEnded('id', step, {});
};

const ended = (output: TaskOutput) => eventRecord.taskEnded('id', output, {});

const inRun = (run: FlowRunTag, ...events: NewExecutionEvent[]) =>
  events.map((event) => eventRecord.inFlowRun(event, run));

/** A running flow execution whose log holds `events`, its journal `completed` method calls, named `current`. */
async function runningFlow(
  events: NewExecutionEvent[],
  completed: { method: string; call: number }[] = [],
  current: string | null = null,
): Promise<{ store: Store; id: string }> {
  const store = await openSqliteStore(':memory:');
  await store.migrate();
  const { execution } = await store.createExecution(newExecution());
  const id = execution.id;
  await store.applyChange({ executionId: id, fromStates: ['PENDING'], state: 'RUNNING', now: t0 });
  for (const event of events)
    await store.applyChange({ executionId: id, fromStates: ['RUNNING'], now: t0, events: [event] });
  for (const { method, call } of completed) {
    const entry = { kind: 'method-completed', method, call, output: null, result: null, final: null };
    await store.applyChange({ executionId: id, fromStates: ['RUNNING'], now: t0, appendFlowEntry: entry });
  }
  await store.applyChange({
    executionId: id,
    fromStates: ['RUNNING'],
    now: t0,
    patch: { currentTask: current },
  });
  return { store, id };
}

async function checkpointOf(flow: { store: Store; id: string }) {
  const execution = await flow.store.getExecution(flow.id);
  return readFlowCheckpoint(flow.store, execution!);
}

describe('readFlowCheckpoint', () => {
  it('gives each run of methods side by side its own completed tasks and open steps, once', async () => {
    const left = { method: 'left', call: 1, run: 1 };
    const right = { method: 'right', call: 1, run: 1 };
    const flow = await runningFlow([
      ...inRun(left, started('first')),
      ...inRun(right, started('first'), answered('first')),
      ...inRun(left, answered('first'), ended(taskOutput('first'))),
      ...inRun(right, ended(taskOutput('first')), started('second')),
      ...inRun(left, started('second'), answered('second', [{ id: 'call_1', name: 'visit', input: {} }])),
      ...inRun(left, toolResult('second', 'call_1')),
    ]);
    const cut = await checkpointOf(flow);

    const leftCut = cut?.take(left);
    expect(leftCut?.outputs.map((output) => [output.taskId, output.usage])).toEqual([['first', usage]]);
    expect(leftCut?.journal?.taskId).toBe('second');
    expect(leftCut?.journal?.entries.map((entry) => entry.kind)).toEqual(['model', 'tool']);
    const rightCut = cut?.take(right);
    expect(rightCut?.outputs.map((output) => output.taskId)).toEqual(['first']);
    expect(rightCut?.journal).toEqual({ taskId: 'second', attempt: 1, entries: [] });
    // Given once; a run that did nothing has nothing to go on from.
    expect(cut?.take(left)).toBeUndefined();
    expect(cut?.take({ method: 'left', call: 1, run: 2 })).toBeUndefined();
  });

  it('keeps the runs of an each apart, and a call run again in a cycle begins anew', async () => {
    const flow = await runningFlow(
      [
        ...inRun({ method: 'tour', call: 1, run: 1 }, started('plan'), ended(taskOutput('plan'))),
        ...inRun({ method: 'tour', call: 2, run: 1 }, started('plan'), ended(taskOutput('plan', 1))),
        ...inRun({ method: 'tour', call: 2, run: 2 }, started('plan')),
      ],
      [{ method: 'tour', call: 1 }],
    );
    const cut = await checkpointOf(flow);

    expect(cut?.take({ method: 'tour', call: 1, run: 1 })).toBeUndefined();
    expect(cut?.take({ method: 'tour', call: 2, run: 1 })?.outputs.map((o) => o.taskId)).toEqual(['plan']);
    const second = cut?.take({ method: 'tour', call: 2, run: 2 });
    expect(second?.outputs).toEqual([]);
    expect(second?.journal?.taskId).toBe('plan');
  });

  it('gives what unmarked events of the current method say to its first run, once', async () => {
    const outline: TaskOutput = { ...taskOutput('outline'), usage: emptyUsage };
    const flow = await runningFlow(
      [
        eventRecord.methodStarted('write_up'),
        started('outline'),
        answered('outline'),
        ended(outline),
        eventRecord.methodStarted('write_up'),
        ...inRun(
          { method: 'write_up', call: 1, run: 1 },
          started('note'),
          answered('note', [{ id: 'c', name: 't', input: {} }]),
        ),
      ],
      [],
      'write_up',
    );
    const cut = await checkpointOf(flow);

    const first = cut?.take({ method: 'write_up', call: 1, run: 1 });
    expect(first?.outputs.map((output) => output.taskId)).toEqual(['outline']);
    expect(first?.journal?.taskId).toBe('note');
    expect(first?.journal?.entries).toHaveLength(1);
    expect(cut?.take({ method: 'write_up', call: 2, run: 1 })).toBeUndefined();
  });

  it('gives unmarked events of a call that waited for review to no later call', async () => {
    const outline: TaskOutput = { ...taskOutput('outline'), usage: emptyUsage };
    const flow = await runningFlow(
      [
        eventRecord.methodStarted('check'),
        started('outline'),
        answered('outline'),
        ended(outline),
        eventRecord.methodReviewRequested(taskOutput('check'), { message: 'OK?' }),
        eventRecord.executionResumed({
          taskId: 'check',
          attempt: 1,
          text: 'no',
          approved: false,
          output: '',
        }),
        eventRecord.methodStarted('check'),
      ],
      [],
      'check',
    );
    const cut = await checkpointOf(flow);

    expect(cut?.take({ method: 'check', call: 2, run: 1 })).toBeUndefined();
  });

  it.each([
    ['approved', true],
    ['rejected', false],
  ])(
    'after a review is %s, gives the runs its pause stopped theirs, and the reviewed call nothing',
    async (_answer, approved) => {
      const walk = { method: 'walk', call: 1, run: 1 };
      const check = { method: 'check', call: 1, run: 1 };
      const flow = await runningFlow([
        ...inRun(walk, started('first'), answered('first'), ended(taskOutput('first'))),
        eventRecord.methodStarted('check'),
        // Unmarked steps of the reviewed method (from an earlier crewd) are no part of its call run again.
        started('outline'),
        ended({ ...taskOutput('outline'), usage: emptyUsage }),
        ...inRun(check, started('look'), answered('look')),
        ...inRun(walk, started('second'), answered('second', [{ id: 'call_1', name: 'visit', input: {} }])),
        ...inRun(walk, toolResult('second', 'call_1')),
      ]);
      await reviewAnswered(flow, check, approved);
      const cut = await checkpointOf(flow);

      const walkCut = cut?.take(walk);
      expect(walkCut?.outputs.map((output) => output.taskId)).toEqual(['first']);
      expect(walkCut?.journal?.taskId).toBe('second');
      expect(walkCut?.journal?.entries.map((entry) => entry.kind)).toEqual(['model', 'tool']);
      expect(cut?.take(check)).toBeUndefined();
      // A rejected call runs again as the next one, anew.
      expect(cut?.take({ method: 'check', call: 2, run: 1 })).toBeUndefined();
    },
  );

  it('gives nothing while a review waits', async () => {
    const walk = { method: 'walk', call: 1, run: 1 };
    const check = { method: 'check', call: 1, run: 1 };
    const flow = await runningFlow(inRun(walk, started('first'), answered('first')));
    await paused(flow, check);

    expect(await checkpointOf(flow)).toBeUndefined();
  });
});

/** Pauses a running flow on the review of `reviewed`'s call, its action done. */
async function paused(flow: { store: Store; id: string }, reviewed: FlowRunTag): Promise<void> {
  const { method, call } = reviewed;
  await flow.store.applyChange({
    executionId: flow.id,
    fromStates: ['RUNNING'],
    now: t0,
    appendFlowEntry: { kind: 'action-completed', method, call, output: 'looked' },
  });
  await flow.store.applyChange({
    executionId: flow.id,
    fromStates: ['RUNNING'],
    state: 'PAUSED',
    now: t0,
    pending: { taskId: method, attempt: call, output: taskOutput(method, call), review: { message: 'OK?' } },
    patch: { currentTask: method },
  });
}

/** Pauses a running flow on the review of `reviewed`'s call, and answers it as `/resume` does. */
async function reviewAnswered(
  flow: { store: Store; id: string },
  reviewed: FlowRunTag,
  approved: boolean,
): Promise<void> {
  await paused(flow, reviewed);
  const { method, call } = reviewed;
  await flow.store.applyChange({
    executionId: flow.id,
    fromStates: ['PAUSED'],
    state: 'PENDING',
    now: t0,
    pending: null,
    appendFeedback: { taskId: method, attempt: call, text: 'fine', approved, output: 'looked' },
  });
}
