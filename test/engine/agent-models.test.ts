import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/engine/tool.ts';
import { agent, chatRequests, crew, engineHarnessPerTest, task } from './engine-harness.ts';

const harness = engineHarnessPerTest();

const lookup: Tool = {
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  run: () => Promise.resolve('a rise and fall of the sea'),
};

function modelCalls(): unknown[] {
  return harness.events.flatMap((event) => (event.type === 'model-call-end' ? [event.model] : []));
}

describe("an agent's models", () => {
  it("sends the llm's temperature, max_tokens and top_p with every call", async () => {
    const definition = crew(
      [
        agent('writer', {
          llm: { model: 'openai/writer-model', temperature: 0.3, maxTokens: 400, topP: 0.8 },
        }),
      ],
      [task('outline', 'writer')],
    );
    harness.fake.enqueue({ content: 'An outline' });

    await harness.run(definition);

    expect(chatRequests(harness.fake)[0]!.body).toMatchObject({
      model: 'writer-model',
      temperature: 0.3,
      max_tokens: 400,
      top_p: 0.8,
    });
  });

  it('calls function_calling_llm for the turns that offer tools and llm for the others', async () => {
    const definition = crew(
      [
        agent('researcher', {
          llm: { model: 'openai/answer-model', temperature: 0.7 },
          functionCallingLlm: { model: 'openai/tool-model', temperature: 0 },
          tools: ['lookup'],
          // One turn with tools, then crewAI's last call without them for the final answer.
          maxIter: 1,
        }),
      ],
      [task('define', 'researcher')],
    );
    harness.fake.enqueue(
      { toolCalls: [{ name: 'lookup', arguments: { word: 'tide' } }] },
      { content: 'A tide is the rise and fall of the sea.' },
    );

    const outcome = await harness.run(definition, { tools: [lookup] });

    expect(outcome.kind).toBe('completed');
    const [toolTurn, answerTurn] = chatRequests(harness.fake);
    expect(toolTurn!.body).toMatchObject({ model: 'tool-model', temperature: 0 });
    expect(toolTurn!.body.tools).toHaveLength(1);
    expect(answerTurn!.body).toMatchObject({ model: 'answer-model', temperature: 0.7 });
    expect(answerTurn!.body.tools).toBeUndefined();
    expect(modelCalls()).toEqual(['openai/tool-model', 'openai/answer-model']);
  });

  it("falls back to the crew's function_calling_llm for agents without their own", async () => {
    const definition = crew([agent('researcher', { tools: ['lookup'] })], [task('define', 'researcher')], {
      functionCallingLlm: { model: 'openai/crew-tool-model' },
    });
    harness.fake.enqueue({ content: 'Defined.' });

    await harness.run(definition, { tools: [lookup] });

    expect(chatRequests(harness.fake)[0]!.body.model).toBe('crew-tool-model');
  });

  it('keeps one model for every turn when no function_calling_llm is set', async () => {
    const definition = crew(
      [agent('researcher', { tools: ['lookup'], maxIter: 1 })],
      [task('define', 'researcher')],
    );
    harness.fake.enqueue(
      { toolCalls: [{ name: 'lookup', arguments: { word: 'tide' } }] },
      { content: 'A tide is the rise and fall of the sea.' },
    );

    await harness.run(definition, { tools: [lookup] });

    expect(chatRequests(harness.fake).map((request) => request.body.model as string)).toEqual([
      'fake-model',
      'fake-model',
    ]);
  });
});
