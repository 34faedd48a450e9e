import { describe, expect, it } from 'vitest';
import { CrewdError } from '../../src/domain/errors.ts';
import type { AgentStep } from '../../src/domain/events.ts';
import type { Tool } from '../../src/engine/tool.ts';
import {
  agent,
  chatRequests,
  crew,
  lastMessage,
  messagesOf,
  engineHarnessPerTest,
  task,
  textOf,
} from './engine-harness.ts';

const harness = engineHarnessPerTest();

function calculator(): Tool & { inputs: unknown[] } {
  const inputs: unknown[] = [];
  return {
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    inputs,
    run(input) {
      inputs.push(input);
      const { a, b } = input as { a: number; b: number };
      return Promise.resolve(String(a + b));
    },
  };
}

const failing: Tool = {
  name: 'lookup',
  description: 'Looks things up',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
  run: () => Promise.reject(new Error('the index is offline')),
};

function steps(): AgentStep[] {
  return harness.events.flatMap((event) => (event.type === 'step-end' ? [event.step] : []));
}

describe('tool calls', () => {
  it('runs the tools the model calls, sends their results back and reports each step', async () => {
    const add = calculator();
    const definition = crew([agent('mathematician', { tools: ['add'] })], [task('sum', 'mathematician')]);
    harness.fake.enqueue(
      { content: 'I will add them.', toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      { content: 'The sum is 5.' },
    );

    const outcome = await harness.run(definition, { tools: [add] });

    expect(add.inputs).toEqual([{ a: 2, b: 3 }]);
    const [first, second] = chatRequests(harness.fake);
    expect(first!.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
      'add',
    ]);
    const toolMessage = lastMessage(second!);
    expect(toolMessage.role).toBe('tool');
    expect(textOf(toolMessage.content)).toBe('5');
    expect(messagesOf(second!).some((message) => message.tool_calls?.[0]?.function.name === 'add')).toBe(
      true,
    );
    expect(steps()).toEqual([
      expect.objectContaining({
        thought: 'I will add them.',
        tool: 'add',
        toolInput: { a: 2, b: 3 },
        result: '5',
      }),
      expect.objectContaining({ thought: 'The sum is 5.', tool: null, result: 'The sum is 5.' }),
    ]);
    expect(steps()[0]!.prompt).toContain('Do sum');
    expect(outcome.kind === 'completed' && outcome.outputs[0]!.output).toBe('The sum is 5.');
  });

  it('reports a failing tool to the model as an error result and goes on', async () => {
    const definition = crew([agent('researcher', { tools: ['lookup'] })], [task('find', 'researcher')]);
    harness.fake.enqueue(
      { toolCalls: [{ name: 'lookup', arguments: { query: 'tides' } }] },
      { content: 'I could not look it up.' },
    );

    const outcome = await harness.run(definition, { tools: [failing] });

    expect(textOf(lastMessage(chatRequests(harness.fake)[1]!).content)).toBe('Error: the index is offline');
    expect(steps()[0]).toMatchObject({ tool: 'lookup', result: 'Error: the index is offline' });
    expect(outcome.kind).toBe('completed');
  });

  it('tells the model when its tool input does not match the tool schema, without running the tool', async () => {
    const add = calculator();
    const definition = crew([agent('mathematician', { tools: ['add'] })], [task('sum', 'mathematician')]);
    harness.fake.enqueue({ toolCalls: [{ name: 'add', arguments: { a: 'two' } }] }, { content: 'Sorry.' });

    await harness.run(definition, { tools: [add] });

    expect(add.inputs).toEqual([]);
    const result = textOf(lastMessage(chatRequests(harness.fake)[1]!).content);
    expect(result).toMatch(/^Error: invalid input for tool 'add'/);
  });

  it("uses the task's tools instead of the agent's when the task lists them", async () => {
    const add = calculator();
    const definition = crew(
      [agent('mathematician', { tools: ['lookup'] })],
      [task('sum', 'mathematician', { tools: ['add'] })],
    );
    harness.fake.enqueue({ content: 'Done.' });

    await harness.run(definition, { tools: [add, failing] });

    const names = chatRequests(harness.fake)[0]!.body.tools.map(
      (tool: { function: { name: string } }) => tool.function.name,
    );
    expect(names).toEqual(['add']);
  });

  it('fails the task, naming the tool and the agent, when a tool is not available', async () => {
    const definition = crew([agent('researcher', { tools: ['search'] })], [task('find', 'researcher')]);

    const failure = harness.run(definition);

    await expect(failure).rejects.toThrow(CrewdError);
    await expect(failure).rejects.toMatchObject({
      code: 'TASK_FAILED',
      message:
        "Task 'find' failed: Agent 'researcher' uses tool 'search', which no tool source provides: add tools/search.ts (or .js) to the crew directory, use a built-in tool, or declare an MCP server in crew.yaml's mcp_servers and name its tool as <server>.<tool>",
    });
    expect(chatRequests(harness.fake)).toHaveLength(0);
  });
});

describe('max_iter', () => {
  it('stops offering tools after max_iter calls and asks once more for the final answer', async () => {
    const add = calculator();
    const definition = crew(
      // The same call every time: with the cache on, the tool would run once.
      [agent('mathematician', { tools: ['add'], maxIter: 3, cache: false })],
      [task('sum', 'mathematician')],
    );
    harness.fake.respondWith((request) =>
      request.body.tools === undefined
        ? { content: 'Final: 4' }
        : { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
    );

    const outcome = await harness.run(definition, { tools: [add] });

    const requests = chatRequests(harness.fake);
    expect(requests).toHaveLength(4);
    expect(requests.slice(0, 3).every((request) => request.body.tools !== undefined)).toBe(true);
    expect(requests[3]!.body.tools).toBeUndefined();
    expect(textOf(lastMessage(requests[3]!).content)).toContain('final answer');
    expect(add.inputs).toHaveLength(3);
    expect(outcome.kind === 'completed' && outcome.outputs[0]!.output).toBe('Final: 4');
  });
});
