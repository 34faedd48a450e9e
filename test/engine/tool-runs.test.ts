import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../src/domain/events.ts';
import type { Tool, ToolContext } from '../../src/engine/tool.ts';
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

/** A tool that records each call's input and context and answers with `answer(input)`. */
function recordingTool(
  name: string,
  answer: (input: unknown) => Promise<string> = (input) => Promise.resolve(`seen ${JSON.stringify(input)}`),
  extra: Partial<Tool> = {},
): Tool & { calls: { input: unknown; context: ToolContext }[] } {
  const calls: { input: unknown; context: ToolContext }[] = [];
  return {
    name,
    description: `The ${name} tool`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    calls,
    run(input, context) {
      calls.push({ input, context });
      return answer(input);
    },
    ...extra,
  };
}

function steps(): AgentStep[] {
  return harness.events.flatMap((event) => (event.type === 'step-end' ? [event.step] : []));
}

describe('running tools', () => {
  it('gives each call its context and shows the model a safe name while steps keep the crew name', async () => {
    const tool = recordingTool('files.read_file');
    const definition = crew([agent('reader', { tools: ['files.read_file'] })], [task('read', 'reader')]);
    harness.fake.enqueue(
      { toolCalls: [{ name: 'files_read_file', arguments: { q: 'a' } }] },
      { content: 'Done.' },
    );

    await harness.run(definition, { tools: [tool], executionId: 'exec-42' });

    const offered = chatRequests(harness.fake)[0]!.body.tools as { function: { name: string } }[];
    expect(offered.map((spec) => spec.function.name)).toEqual(['files_read_file']);
    expect(tool.calls).toHaveLength(1);
    expect(tool.calls[0]!.context).toMatchObject({
      toolCallId: 'call_1',
      executionId: 'exec-42',
      taskId: 'read',
      agent: 'reader',
    });
    expect(steps()[0]).toMatchObject({
      tool: 'files.read_file',
      toolInput: { q: 'a' },
      toolCallId: 'call_1',
    });
  });

  it('reports a call that runs past its time to the model and goes on', async () => {
    const stuck = recordingTool('stuck', () => new Promise(() => undefined), { timeoutMs: 5 });
    const definition = crew([agent('waiter', { tools: ['stuck'] })], [task('wait', 'waiter')]);
    harness.fake.enqueue({ toolCalls: [{ name: 'stuck', arguments: {} }] }, { content: 'Gave up waiting.' });

    const outcome = await harness.run(definition, { tools: [stuck] });

    expect(outcome.kind).toBe('completed');
    expect(textOf(lastMessage(chatRequests(harness.fake)[1]!).content)).toBe(
      'Error: the tool did not finish within 5 ms.',
    );
    expect(stuck.calls[0]!.context.abortSignal.aborted).toBe(true);
  });

  it('cuts a long result and tells the model so', async () => {
    const long = recordingTool('long', () => Promise.resolve('x'.repeat(25_000)));
    const definition = crew([agent('reader', { tools: ['long'] })], [task('read', 'reader')]);
    harness.fake.enqueue({ toolCalls: [{ name: 'long', arguments: {} }] }, { content: 'Read it.' });

    await harness.run(definition, { tools: [long] });

    const seen = textOf(lastMessage(chatRequests(harness.fake)[1]!).content);
    expect(seen.startsWith('x'.repeat(20_000))).toBe(true);
    expect(seen).toContain(
      '[Output truncated: the tool returned 25000 characters; only the first 20000 are shown.]',
    );
  });

  it('stores and reports a long result as the model saw it, cut, and a huge failure message cut the same way', async () => {
    const long = recordingTool('long', () => Promise.resolve('x'.repeat(3_000_000)));
    const failing = recordingTool('failing', () => Promise.reject(new Error('y'.repeat(3_000_000))));
    const definition = crew([agent('reader', { tools: ['long', 'failing'] })], [task('read', 'reader')]);
    harness.fake.enqueue(
      { toolCalls: [{ name: 'long', arguments: {} }] },
      { toolCalls: [{ name: 'failing', arguments: {} }] },
      { content: 'Read it.' },
    );

    await harness.run(definition, { tools: [long, failing] });

    const [longStep, failedStep] = steps();
    expect(longStep!.result).toHaveLength(
      20_000 +
        '\n\n[Output truncated: the tool returned 3000000 characters; only the first 20000 are shown.]'
          .length,
    );
    expect(failedStep!.result.startsWith(`Error: ${'y'.repeat(100)}`)).toBe(true);
    expect(failedStep!.result).toContain('[Output truncated: the tool returned 3000007 characters');
    expect(failedStep!.result.length).toBeLessThan(20_200);
  });

  it("keeps a step's copy of a long prompt clipped, and gives the model the whole prompt", async () => {
    const lookup = recordingTool('lookup');
    const definition = crew(
      [agent('reader', { tools: ['lookup'] })],
      [task('read', 'reader', { description: `Read {topic}` })],
    );
    harness.fake.enqueue({ toolCalls: [{ name: 'lookup', arguments: {} }] }, { content: 'z'.repeat(10_000) });

    await harness.run(definition, { tools: [lookup], inputs: { topic: 'w'.repeat(100_000) } });

    expect(textOf(lastMessage(chatRequests(harness.fake)[0]!).content)).toContain('w'.repeat(100_000));
    for (const step of steps()) {
      expect(step.prompt.length).toBeLessThan(4200);
      expect(step.prompt).toMatch(/… \[clipped: \d+ more characters\]$/);
    }
    const final = steps().at(-1)!;
    expect(final.result).toBe('z'.repeat(10_000));
    expect(final.thought).toBe(`${'z'.repeat(4096)}… [clipped: 5904 more characters]`);
    const ended = harness.events.flatMap((event) => (event.type === 'task-end' ? [event.output] : []));
    expect(ended[0]!.output).toBe('z'.repeat(10_000));
    expect(ended[0]!.description).toBe(`Read ${'w'.repeat(4091)}… [clipped: 95909 more characters]`);
  });

  it('answers a repeated call with the same arguments from the cache, and runs it again with cache: false', async () => {
    const lookup = recordingTool('lookup');
    const twice = [
      { toolCalls: [{ name: 'lookup', arguments: { q: 'tides' } }] },
      { toolCalls: [{ name: 'lookup', arguments: { q: 'tides' } }] },
      { content: 'Tides come twice a day.' },
    ];
    harness.fake.enqueue(...twice);
    await harness.run(crew([agent('cached', { tools: ['lookup'] })], [task('find', 'cached')]), {
      tools: [lookup],
    });
    expect(lookup.calls).toHaveLength(1);
    expect(
      steps()
        .filter((step) => step.tool === 'lookup')
        .map((step) => step.result),
    ).toEqual(['seen {"q":"tides"}', 'seen {"q":"tides"}']);

    harness.fake.enqueue(...twice);
    await harness.run(
      crew([agent('uncached', { tools: ['lookup'], cache: false })], [task('find', 'uncached')]),
      { tools: [lookup] },
    );
    expect(lookup.calls).toHaveLength(3);
  });

  it('replays a journal: recorded answers and tool results are used, only the rest is asked', async () => {
    const add = recordingTool('add', () => Promise.resolve('5'));
    const definition = crew([agent('mathematician', { tools: ['add'] })], [task('sum', 'mathematician')]);
    const usage = { promptTokens: 7, completionTokens: 3, totalTokens: 10, successfulRequests: 1 };
    harness.fake.enqueue({ content: 'The sum is 5.' });

    const outcome = await harness.run(definition, {
      tools: [add],
      checkpoint: {
        outputs: [],
        feedback: [],
        journal: {
          taskId: 'sum',
          attempt: 1,
          entries: [
            {
              kind: 'model',
              answer: { text: 'Adding.', toolCalls: [{ id: 'c1', name: 'add', input: { q: '2+3' } }] },
              usage,
            },
            { kind: 'tool', toolCallId: 'c1', result: '5' },
          ],
        },
      },
    });

    expect(add.calls).toHaveLength(0);
    const requests = chatRequests(harness.fake);
    expect(requests).toHaveLength(1);
    expect(lastMessage(requests[0]!)).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(steps().map((step) => step.tool)).toEqual([null]);
    expect(harness.events.filter((event) => event.type === 'model-call-end')).toHaveLength(1);
    expect(outcome.kind === 'completed' && outcome.outputs[0]!.usage).toEqual({
      promptTokens: 17,
      completionTokens: 8,
      totalTokens: 25,
      successfulRequests: 2,
    });
  });

  it('ignores a journal of another attempt', async () => {
    const add = recordingTool('add', () => Promise.resolve('5'));
    const definition = crew([agent('mathematician', { tools: ['add'] })], [task('sum', 'mathematician')]);
    harness.fake.enqueue({ content: 'The sum is 5.' });
    const usage = { promptTokens: 7, completionTokens: 3, totalTokens: 10, successfulRequests: 1 };

    await harness.run(definition, {
      tools: [add],
      checkpoint: {
        outputs: [],
        feedback: [],
        journal: {
          taskId: 'sum',
          attempt: 2,
          entries: [{ kind: 'model', answer: { text: 'Old.', toolCalls: [] }, usage }],
        },
      },
    });

    expect(chatRequests(harness.fake)).toHaveLength(1);
    expect(lastMessage(chatRequests(harness.fake)[0]!).role).toBe('user');
  });
});
