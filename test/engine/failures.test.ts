import { describe, expect, it } from 'vitest';
import { CrewdError } from '../../src/domain/errors.ts';
import { agent, chatRequests, crew, engineHarnessPerTest, task } from './engine-harness.ts';
import { until } from '../support/until.ts';

const harness = engineHarnessPerTest();

const definition = crew([agent('writer')], [task('outline', 'writer'), task('draft', 'writer')]);

async function failureOf(promise: Promise<unknown>): Promise<CrewdError> {
  const error: unknown = await promise.catch((caught: unknown) => caught);
  if (!(error instanceof CrewdError)) throw new Error(`expected a CrewdError, got ${String(error)}`);
  return error;
}

describe('failures', () => {
  it('fails the task by name when the model gives an empty final answer', async () => {
    harness.fake.enqueue({ content: 'An outline' }, { content: '  \n' });

    const error = await failureOf(harness.run(definition));

    expect(error.code).toBe('TASK_FAILED');
    expect(error.message).toBe("Task 'draft' failed: the model gave an empty answer");
  });

  it('fails the task by name once the model keeps answering 500 after its retries, without provider text', async () => {
    harness.fake.enqueue({ content: 'An outline' });
    harness.fake.respondWith(() => ({ status: 500, errorMessage: 'upstream secret: shard 7 at 10.0.0.3' }));

    const error = await failureOf(harness.run(definition));

    expect(error.code).toBe('TASK_FAILED');
    expect(error.message).toMatch(/^Task 'draft' failed: /);
    expect(error.message).not.toContain('secret');
    expect(error.message).not.toContain('10.0.0.3');
    // One call for the first task, then three tries (two retries) for the second.
    expect(chatRequests(harness.fake)).toHaveLength(4);
  });

  it('stops promptly with the abort reason when aborted during a model call', async () => {
    harness.fake.enqueue({ content: 'slow', delayMs: 10_000 });
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    const running = harness.run(definition, { signal: controller.signal });
    await until(() => chatRequests(harness.fake).length === 1);

    controller.abort(reason);

    await expect(running).rejects.toBe(reason);
    // The call itself was dropped, not left to finish in the background.
    await until(() => harness.fake.abandoned.length > 0);
    expect(harness.fake.abandoned).toHaveLength(1);
    expect(harness.events.map((event) => event.type)).toEqual(['task-start']);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));

    await expect(harness.run(definition, { signal: controller.signal })).rejects.toThrow('gone');
    expect(harness.events).toEqual([]);
  });

  it('fails the task, naming the agent, when no model is configured anywhere', async () => {
    const withoutModel = crew([agent('writer')], [task('outline', 'writer')], { llm: undefined });

    const error = await failureOf(harness.run(withoutModel, { defaultModel: undefined }));

    expect(error.code).toBe('TASK_FAILED');
    expect(error.message).toContain("Task 'outline' failed: Agent 'writer' has no model");
    expect(error.cause).toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('uses the default model when neither the agent nor the crew names one', async () => {
    const withoutModel = crew([agent('writer')], [task('outline', 'writer')], { llm: undefined });
    harness.fake.enqueue({ content: 'An outline' });

    const outcome = await harness.run(withoutModel, { defaultModel: 'openai/default-model' });

    expect(outcome.kind).toBe('completed');
    expect(chatRequests(harness.fake)[0]!.body.model).toBe('default-model');
  });

  it("prefers the agent's model over the crew's", async () => {
    const mixed = crew(
      [agent('writer', { llm: { model: 'openai/agent-model' } })],
      [task('outline', 'writer')],
    );
    harness.fake.enqueue({ content: 'An outline' });

    await harness.run(mixed, { defaultModel: 'openai/default-model' });

    expect(chatRequests(harness.fake)[0]!.body.model).toBe('agent-model');
  });

  it('refuses a hierarchical crew without a manager with a configuration error', async () => {
    const hierarchical = crew([agent('writer')], [task('outline', 'writer')], { process: 'hierarchical' });

    const error = await failureOf(harness.run(hierarchical));

    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('manager_llm or manager_agent');
    expect(chatRequests(harness.fake)).toHaveLength(0);
  });

  it('passes an error thrown by the event listener through unchanged', async () => {
    class Stop extends Error {}
    const stop = new Stop('listener stopped the run');
    harness.fake.enqueue({ content: 'An outline' });

    const running = harness.run(definition, {
      onEvent: (event) => {
        if (event.type === 'model-call-end') throw stop;
      },
    });

    await expect(running).rejects.toBe(stop);
    expect(chatRequests(harness.fake)).toHaveLength(1);
  });
});
