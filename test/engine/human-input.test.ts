import { describe, expect, it } from 'vitest';
import { feedbackSlot } from '../../src/domain/feedback-slot.ts';
import type { HumanFeedback, TaskOutput } from '../../src/domain/task-output.ts';
import type { RunOutcome } from '../../src/engine/run-request.ts';
import {
  agent,
  chatRequests,
  crew,
  engineHarnessPerTest,
  systemText,
  task,
  taskText,
} from './engine-harness.ts';

const harness = engineHarnessPerTest();

const definition = crew(
  [agent('writer'), agent('editor')],
  [
    task('research', 'writer'),
    task('draft', 'writer', { humanInput: true }),
    task('polish', 'editor'),
    task('title', 'editor', { context: [] }),
  ],
);

function pausedOutput(outcome: RunOutcome): TaskOutput {
  if (outcome.kind !== 'paused') throw new Error(`expected a pause, got ${outcome.kind}`);
  return outcome.output;
}

function feedback(output: TaskOutput, text: string, approved: boolean): HumanFeedback {
  return { taskId: output.taskId, attempt: output.attempt, text, approved, output: output.output };
}

/** Runs up to the pause on `draft` and returns the checkpoint a store would hold then. */
async function runToPause(): Promise<{ research: TaskOutput; draft: TaskOutput }> {
  harness.fake.enqueue({ content: 'Research notes' }, { content: 'Draft one' });
  const draft = pausedOutput(await harness.run(definition));
  const research = harness.events.flatMap((event) =>
    event.type === 'task-end' && event.output.taskId === 'research' ? [event.output] : [],
  )[0]!;
  harness.fake.requests.length = 0;
  harness.events.length = 0;
  return { research, draft };
}

describe('human input', () => {
  it('pauses after the answer of a human-input task and reports it as awaiting feedback', async () => {
    harness.fake.enqueue({ content: 'Research notes' }, { content: 'Draft one' });

    const outcome = await harness.run(definition);

    expect(pausedOutput(outcome)).toMatchObject({ taskId: 'draft', output: 'Draft one', attempt: 1 });
    const ends = harness.events.flatMap((event) => (event.type === 'task-end' ? [event] : []));
    expect(ends.map((end) => [end.output.taskId, end.awaitingHumanInput])).toEqual([
      ['research', false],
      ['draft', true],
    ]);
    expect(chatRequests(harness.fake)).toHaveLength(2);
  });

  it('after approval goes on with the next task, with the feedback in a slot of every later task prompt', async () => {
    const { research, draft } = await runToPause();
    harness.fake.enqueue({ content: 'Polished text' }, { content: 'A title' });

    const outcome = await harness.run(definition, {
      checkpoint: { outputs: [research, draft], feedback: [feedback(draft, 'Nice, keep it short', true)] },
    });

    const requests = chatRequests(harness.fake);
    expect(requests.map((request) => taskText(request).split('\n')[0])).toEqual([
      'Current task: Do polish',
      'Current task: Do title',
    ]);
    for (const request of requests) {
      expect(taskText(request)).toContain(feedbackSlot('Nice, keep it short'));
      expect(systemText(request)).not.toContain('Nice, keep it short');
    }
    expect(taskText(requests[0]!)).toContain('Draft one');
    expect(outcome.kind === 'completed' && outcome.outputs.map((output) => output.taskId)).toEqual([
      'research',
      'draft',
      'polish',
      'title',
    ]);
    expect(harness.events.filter((event) => event.type === 'task-start')).toHaveLength(2);
  });

  it('after a rejection runs the same task again as attempt 2 with the previous answer and the feedback', async () => {
    const { research, draft } = await runToPause();
    harness.fake.enqueue({ content: 'Draft two' });

    const outcome = await harness.run(definition, {
      checkpoint: { outputs: [research], feedback: [feedback(draft, 'Too long, cut it in half', false)] },
    });

    expect(pausedOutput(outcome)).toMatchObject({ taskId: 'draft', output: 'Draft two', attempt: 2 });
    expect(harness.events[0]).toEqual({
      type: 'task-start',
      taskId: 'draft',
      agent: 'writer role',
      attempt: 2,
    });
    const [request] = chatRequests(harness.fake);
    expect(chatRequests(harness.fake)).toHaveLength(1);
    expect(taskText(request!)).toContain('Draft one');
    expect(taskText(request!)).toContain(feedbackSlot('Too long, cut it in half'));
    expect(taskText(request!)).toContain('Research notes');
    expect(systemText(request!)).not.toContain('Too long');
  });

  it('after a rejection and then an approval, later tasks see only the approved feedback', async () => {
    const { research, draft } = await runToPause();
    const rejected = feedback(draft, 'Too long', false);
    harness.fake.enqueue({ content: 'Draft two' });
    const retried = pausedOutput(
      await harness.run(definition, { checkpoint: { outputs: [research], feedback: [rejected] } }),
    );
    harness.fake.requests.length = 0;
    harness.fake.enqueue({ content: 'Polished text' }, { content: 'A title' });

    await harness.run(definition, {
      checkpoint: { outputs: [research, retried], feedback: [rejected, feedback(retried, 'Good now', true)] },
    });

    const polish = chatRequests(harness.fake)[0]!;
    expect(taskText(polish)).toContain(feedbackSlot('Good now'));
    expect(taskText(polish)).toContain('Draft two');
    expect(taskText(polish)).not.toContain('Too long');
    expect(taskText(polish)).not.toContain('Draft one');
  });

  it('completes without calling the model when every task is already accepted', async () => {
    const { research, draft } = await runToPause();
    harness.fake.enqueue({ content: 'Polished text' }, { content: 'A title' });
    const done = await harness.run(definition, {
      checkpoint: { outputs: [research, draft], feedback: [feedback(draft, '', true)] },
    });
    if (done.kind !== 'completed') throw new Error('expected completion');
    harness.fake.requests.length = 0;

    const again = await harness.run(definition, { checkpoint: { outputs: done.outputs, feedback: [] } });

    expect(again.kind === 'completed' && again.outputs).toEqual(done.outputs);
    expect(again.usage.successfulRequests).toBe(0);
    expect(chatRequests(harness.fake)).toHaveLength(0);
  });
});
