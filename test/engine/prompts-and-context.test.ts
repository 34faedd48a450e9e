import { describe, expect, it } from 'vitest';
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

describe('prompts', () => {
  it('fills input placeholders in the agent persona and the task texts', async () => {
    const writer = agent('writer', {
      role: 'Writer about {topic}',
      goal: 'Explain {topic} to {audience}',
      backstory: 'You have written about {topic} since {year}.',
    });
    const definition = crew(
      [writer],
      [task('draft', 'writer', { description: 'Write about {topic}', expectedOutput: 'A {length} essay' })],
    );
    harness.fake.enqueue({ content: 'An essay' });

    await harness.run(definition, {
      inputs: { topic: 'tides', audience: 'children', year: 2001, length: 'short' },
    });

    const [request] = chatRequests(harness.fake);
    expect(systemText(request!)).toContain('You are Writer about tides.');
    expect(systemText(request!)).toContain('Explain tides to children');
    expect(systemText(request!)).toContain('You have written about tides since 2001.');
    expect(taskText(request!)).toContain('Write about tides');
    expect(taskText(request!)).toContain('A short essay');
    expect(JSON.stringify(request!.body.messages)).not.toMatch(/\{(topic|audience|year|length)\}/);
  });

  it('reports the interpolated texts and the agent role in the task output', async () => {
    const definition = crew(
      [agent('writer', { role: '{topic} writer' })],
      [task('draft', 'writer', { description: 'Write about {topic}' })],
    );
    harness.fake.enqueue({ content: 'Tides rise and fall twice a day because of the moon' });

    const outcome = await harness.run(definition, { inputs: { topic: 'tides' } });

    expect(outcome.kind).toBe('completed');
    if (outcome.kind !== 'completed') return;
    expect(outcome.outputs[0]).toMatchObject({
      taskId: 'draft',
      description: 'Write about tides',
      agent: 'tides writer',
      output: 'Tides rise and fall twice a day because of the moon',
      summary: 'Tides rise and fall twice a day because of the...',
      outputJson: null,
      attempt: 1,
    });
  });
});

describe('context', () => {
  const agents = [agent('worker')];

  it('gives a task without a context list the outputs of every earlier task, in the user message only', async () => {
    const definition = crew(agents, [task('one', 'worker'), task('two', 'worker'), task('three', 'worker')]);
    harness.fake.enqueue(
      { content: 'first output' },
      { content: 'second output' },
      { content: 'third output' },
    );

    await harness.run(definition);

    const [first, second, third] = chatRequests(harness.fake);
    expect(taskText(first!)).not.toContain('Context from earlier tasks');
    expect(taskText(second!)).toContain('first output');
    expect(taskText(third!)).toContain('first output');
    expect(taskText(third!)).toContain('second output');
    expect(taskText(third!).indexOf('first output')).toBeLessThan(taskText(third!).indexOf('second output'));
    expect(systemText(third!)).not.toContain('output');
  });

  it('gives a task with a context list only the outputs of the tasks it names', async () => {
    const definition = crew(agents, [
      task('one', 'worker'),
      task('two', 'worker'),
      task('three', 'worker', { context: ['one'] }),
    ]);
    harness.fake.enqueue(
      { content: 'first output' },
      { content: 'second output' },
      { content: 'third output' },
    );

    await harness.run(definition);

    const third = chatRequests(harness.fake)[2]!;
    expect(taskText(third)).toContain('first output');
    expect(taskText(third)).not.toContain('second output');
  });

  it('gives a task with an empty context list no earlier outputs', async () => {
    const definition = crew(agents, [task('one', 'worker'), task('two', 'worker', { context: [] })]);
    harness.fake.enqueue({ content: 'first output' }, { content: 'second output' });

    await harness.run(definition);

    const second = chatRequests(harness.fake)[1]!;
    expect(taskText(second)).not.toContain('first output');
    expect(taskText(second)).not.toContain('Context from earlier tasks');
  });

  it('takes the context of skipped tasks from the checkpoint and never runs them again', async () => {
    const definition = crew(agents, [task('one', 'worker'), task('two', 'worker')]);
    harness.fake.enqueue({ content: 'first output' }, { content: 'second output' });
    const first = await harness.run(definition);
    if (first.kind !== 'completed') throw new Error('expected completion');
    harness.fake.requests.length = 0;
    harness.fake.enqueue({ content: 'second output again' });

    const outcome = await harness.run(definition, {
      checkpoint: { outputs: [first.outputs[0]!], feedback: [] },
    });

    const requests = chatRequests(harness.fake);
    expect(requests).toHaveLength(1);
    expect(taskText(requests[0]!)).toContain('Do two');
    expect(taskText(requests[0]!)).toContain('first output');
    expect(outcome.kind === 'completed' && outcome.outputs.map((output) => output.output)).toEqual([
      'first output',
      'second output again',
    ]);
  });
});
