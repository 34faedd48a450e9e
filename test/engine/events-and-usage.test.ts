import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/engine/tool.ts';
import { agent, chatRequests, crew, eventTypes, engineHarnessPerTest, task } from './engine-harness.ts';
import { recordingLimiter } from '../support/recording-limiter.ts';

const harness = engineHarnessPerTest();

const echo: Tool = {
  name: 'echo',
  description: 'Repeats its input',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  run: (input) => Promise.resolve(JSON.stringify(input)),
};

describe('events', () => {
  it('reports task starts, model calls, steps and task ends in the order they happen', async () => {
    const definition = crew(
      [agent('worker', { tools: ['echo'] })],
      [task('one', 'worker'), task('two', 'worker')],
    );
    harness.fake.enqueue(
      {
        toolCalls: [
          { name: 'echo', arguments: { text: 'a' } },
          { name: 'echo', arguments: { text: 'b' } },
        ],
      },
      { content: 'one done' },
      { content: 'two done' },
    );

    await harness.run(definition, { tools: [echo] });

    expect(eventTypes(harness.events)).toEqual([
      'task-start',
      'model-call-end',
      'step-end:echo',
      'step-end:echo',
      'model-call-end',
      'step-end:final',
      'task-end',
      'task-start',
      'model-call-end',
      'step-end:final',
      'task-end',
    ]);
    expect(harness.events[0]).toEqual({
      type: 'task-start',
      taskId: 'one',
      agent: 'worker role',
      attempt: 1,
    });
    expect(harness.events[1]).toMatchObject({
      type: 'model-call-end',
      taskId: 'one',
      model: 'openai/fake-model',
    });
  });

  it('waits for each event listener before going on', async () => {
    const definition = crew([agent('worker')], [task('one', 'worker'), task('two', 'worker')]);
    harness.fake.enqueue({ content: 'one done' }, { content: 'two done' });
    const seenByListener: number[] = [];
    let listening = false;
    let overlapped = false;

    await harness.run(definition, {
      onEvent: async (event) => {
        // An engine that went on without waiting would hand over its next event while this one is still held.
        if (listening) overlapped = true;
        listening = true;
        await new Promise((resolve) => setImmediate(resolve));
        if (event.type === 'task-end') seenByListener.push(chatRequests(harness.fake).length);
        listening = false;
      },
    });

    expect(overlapped).toBe(false);
    expect(seenByListener).toEqual([1, 2]);
  });
});

describe('token usage', () => {
  it('is reported per model call and summed per task and per run', async () => {
    const definition = crew(
      [agent('worker', { tools: ['echo'] })],
      [task('one', 'worker'), task('two', 'worker')],
    );
    harness.fake.enqueue(
      { toolCalls: [{ name: 'echo', arguments: {} }], usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { content: 'one done', usage: { prompt_tokens: 120, completion_tokens: 20 } },
      { content: 'two done', usage: { prompt_tokens: 50, completion_tokens: 5 } },
    );

    const outcome = await harness.run(definition, { tools: [echo] });

    const calls = harness.events.flatMap((event) => (event.type === 'model-call-end' ? [event] : []));
    expect(calls.map((call) => call.usage)).toEqual([
      { promptTokens: 100, completionTokens: 10, totalTokens: 110, successfulRequests: 1 },
      { promptTokens: 120, completionTokens: 20, totalTokens: 140, successfulRequests: 1 },
      { promptTokens: 50, completionTokens: 5, totalTokens: 55, successfulRequests: 1 },
    ]);
    expect(calls.every((call) => call.durationMs >= 0)).toBe(true);
    if (outcome.kind !== 'completed') throw new Error('expected completion');
    expect(outcome.outputs.map((output) => output.usage)).toEqual([
      { promptTokens: 220, completionTokens: 30, totalTokens: 250, successfulRequests: 2 },
      { promptTokens: 50, completionTokens: 5, totalTokens: 55, successfulRequests: 1 },
    ]);
    expect(outcome.usage).toEqual({
      promptTokens: 270,
      completionTokens: 35,
      totalTokens: 305,
      successfulRequests: 3,
    });
  });

  it("counts only this run's calls when resuming from a checkpoint", async () => {
    const definition = crew([agent('worker')], [task('one', 'worker'), task('two', 'worker')]);
    harness.fake.enqueue({ content: 'one done', usage: { prompt_tokens: 40, completion_tokens: 4 } });
    harness.fake.enqueue({ content: 'two done', usage: { prompt_tokens: 30, completion_tokens: 3 } });
    const first = await harness.run(definition);
    if (first.kind !== 'completed') throw new Error('expected completion');
    harness.fake.enqueue({ content: 'two again', usage: { prompt_tokens: 7, completion_tokens: 1 } });

    const resumed = await harness.run(definition, {
      checkpoint: { outputs: [first.outputs[0]!], feedback: [] },
    });

    expect(resumed.usage).toEqual({
      promptTokens: 7,
      completionTokens: 1,
      totalTokens: 8,
      successfulRequests: 1,
    });
  });
});

describe('max_rpm', () => {
  it("spaces an agent's model calls to stay within its requests per minute", async () => {
    // 1200 requests per minute: one call every 50 ms.
    const definition = crew(
      [agent('worker', { maxRpm: 1200 })],
      [task('one', 'worker'), task('two', 'worker'), task('three', 'worker')],
    );
    const { limiter, waits } = recordingLimiter();

    await harness.run(definition, { limiter });

    const calls = harness.events.flatMap((event) => (event.type === 'model-call-end' ? [event] : []));
    expect(calls).toHaveLength(3);
    // The limiter's clock moves only by its waits: the second and third calls were each held 50 ms.
    expect(waits).toEqual([50, 50]);
  });
});
