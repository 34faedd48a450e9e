import { describe, expect, it } from 'vitest';
import { CrewdError } from '../../src/domain/errors.ts';
import type { Tool } from '../../src/engine/tool.ts';
import {
  agent,
  chatRequests,
  crew,
  lastMessage,
  engineHarnessPerTest,
  task,
  textOf,
} from './engine-harness.ts';

const harness = engineHarnessPerTest();

const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, score: { type: 'number' } },
  required: ['title', 'score'],
};
const definition = crew([agent('critic')], [task('review', 'critic', { outputJson: schema })]);

describe('output_json', () => {
  it('asks for the schema and returns the parsed answer beside the raw text', async () => {
    const answer = '```json\n{"title": "Tides", "score": 8}\n```';
    harness.fake.enqueue({ content: answer });

    const outcome = await harness.run(definition);

    const [request] = chatRequests(harness.fake);
    expect(request!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'review', schema },
    });
    expect(outcome.kind === 'completed' && outcome.outputs[0]).toMatchObject({
      output: answer,
      outputJson: { title: 'Tides', score: 8 },
    });
  });

  it('asks once more with the validation error when the answer does not match, and accepts the fix', async () => {
    harness.fake.enqueue(
      { content: '{"title": "Tides", "score": "high"}' },
      { content: '{"title": "Tides", "score": 9}' },
    );

    const outcome = await harness.run(definition);

    const requests = chatRequests(harness.fake);
    expect(requests).toHaveLength(2);
    const correction = lastMessage(requests[1]!);
    expect(correction.role).toBe('user');
    expect(textOf(correction.content)).toContain('answer/score must be number');
    expect(outcome.kind === 'completed' && outcome.outputs[0]!.outputJson).toEqual({
      title: 'Tides',
      score: 9,
    });
  });

  it('lets the agent call tools before it gives the structured answer', async () => {
    const scorer: Tool = {
      name: 'score',
      description: 'Scores a text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      run: () => Promise.resolve('7'),
    };
    const withTools = crew(
      [agent('critic', { tools: ['score'] })],
      [task('review', 'critic', { outputJson: schema })],
    );
    harness.fake.enqueue(
      { toolCalls: [{ name: 'score', arguments: { text: 'Tides' } }] },
      { content: '{"title": "Tides", "score": 7}' },
    );

    const outcome = await harness.run(withTools, { tools: [scorer] });

    expect(chatRequests(harness.fake)).toHaveLength(2);
    expect(textOf(lastMessage(chatRequests(harness.fake)[1]!).content)).toBe('7');
    expect(outcome.kind === 'completed' && outcome.outputs[0]!.outputJson).toEqual({
      title: 'Tides',
      score: 7,
    });
  });

  it('fails the task with OUTPUT_INVALID when the second answer is still invalid and no retry is left', async () => {
    harness.fake.enqueue({ content: 'I think it is great' }, { content: '{"title": "Tides"}' });
    const noRetries = crew(
      [agent('critic', { maxRetryLimit: 0 })],
      [task('review', 'critic', { outputJson: schema })],
    );

    const error: unknown = await harness.run(noRetries).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(CrewdError);
    expect(error).toMatchObject({ code: 'TASK_FAILED' });
    expect((error as Error).message).toMatch(/^Task 'review' failed: .*output_json/);
    expect((error as Error).message).toContain("must have required property 'score'");
    expect((error as Error).cause).toMatchObject({ code: 'OUTPUT_INVALID' });
    expect(chatRequests(harness.fake)).toHaveLength(2);
    expect(harness.events.some((event) => event.type === 'task-end')).toBe(false);
  });

  it("runs the task again after an invalid answer, as crewAI's max_retry_limit (default 2) allows", async () => {
    harness.fake.enqueue(
      { content: 'great' },
      { content: 'very great' },
      { content: 'still great' },
      { content: 'really great' },
      { content: '{"title": "Tides", "score": 7}' },
    );

    const outcome = await harness.run(definition);

    expect(chatRequests(harness.fake)).toHaveLength(5);
    expect(outcome.kind === 'completed' && outcome.outputs[0]?.outputJson).toEqual({
      title: 'Tides',
      score: 7,
    });
  });

  it('fails once max_retry_limit further executions have failed too', async () => {
    harness.fake.enqueue(
      { content: 'a' },
      { content: 'b' },
      { content: 'c' },
      { content: 'd' },
      { content: 'e' },
      { content: 'f' },
    );
    const oneRetry = crew(
      [agent('critic', { maxRetryLimit: 1 })],
      [task('review', 'critic', { outputJson: schema })],
    );

    const error: unknown = await harness.run(oneRetry).catch((caught: unknown) => caught);

    expect((error as Error).cause).toMatchObject({ code: 'OUTPUT_INVALID' });
    expect(chatRequests(harness.fake)).toHaveLength(4);
  });
});
