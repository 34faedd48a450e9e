import { describe, expect, it } from 'vitest';
import type { TaskDefinition } from '../../src/domain/crew.ts';
import type { AgentStep } from '../../src/domain/events.ts';
import { CrewdError } from '../../src/domain/errors.ts';
import type { HumanFeedback, TaskOutput } from '../../src/domain/task-output.ts';
import type { RunOutcome } from '../../src/engine/run-request.ts';
import type { StepJournal } from '../../src/engine/step-journal.ts';
import type { Tool } from '../../src/engine/tool.ts';
import type { RecordedRequest } from '../support/fake-openai-server.ts';
import {
  agent,
  chatRequests,
  crew,
  messagesOf,
  engineHarnessPerTest,
  systemText,
  task,
  taskText,
  textOf,
} from './engine-harness.ts';

const harness = engineHarnessPerTest();

const delegateTool = 'Delegate_work_to_coworker';
const askTool = 'Ask_question_to_coworker';
const managerModel = 'manager-model';

const hierarchical = crew(
  [agent('researcher'), agent('writer')],
  [task('research', 'researcher'), task('article', 'writer')],
  { process: 'hierarchical', managerLlm: { model: `openai/${managerModel}` } },
);

function toolNames(request: RecordedRequest): string[] {
  return ((request.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
}

function toolResults(request: RecordedRequest): string[] {
  return messagesOf(request)
    .filter((message) => message.role === 'tool')
    .map((message) => textOf(message.content));
}

const isManager = (request: RecordedRequest): boolean => systemText(request).includes('Crew Manager');

/** The roles the manager's "Delegate work to coworker" tool offers. */
function coworkerRoles(request: RecordedRequest): string[] {
  const roles = /Hand a specific task to one of these coworkers:\n((?:- .*\n)+)/.exec(
    JSON.stringify(request.body.tools?.[0]?.function.description ?? '').replaceAll('\\n', '\n'),
  );
  return (roles?.[1] ?? '').split('\n').flatMap((line) => (line.startsWith('- ') ? [line.slice(2)] : []));
}

/** The role the task prompt's "Current task: Do <task>" is written for, in the test crews: `<task agent> role`. */
function assignedRole(request: RecordedRequest): string {
  return coworkerRoles(request)[0] ?? 'unknown';
}

function steps(): AgentStep[] {
  return harness.events.flatMap((event) => (event.type === 'step-end' ? [event.step] : []));
}

function completedOutputs(outcome: RunOutcome): readonly TaskOutput[] {
  if (outcome.kind !== 'completed') throw new Error(`expected completion, got ${outcome.kind}`);
  return outcome.outputs;
}

async function failureOf(promise: Promise<unknown>): Promise<CrewdError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof CrewdError)) throw new Error(`expected a CrewdError, got ${String(error)}`);
  return error;
}

describe('hierarchical process', () => {
  it('has the manager delegate each task to its agent and answer with what the coworker did', async () => {
    harness.fake.respondWith((request) => {
      if (!isManager(request)) return { content: `Work of ${systemText(request).split('.')[0]}` };
      const [result] = toolResults(request);
      if (result === undefined) {
        return {
          content: 'I will hand this over.',
          toolCalls: [
            {
              name: delegateTool,
              arguments: {
                task: taskText(request).split('\n')[0],
                context: 'All we know',
                coworker: assignedRole(request),
              },
            },
          ],
        };
      }
      return { content: `Checked: ${result}` };
    });

    const outputs = completedOutputs(await harness.run(hierarchical));

    expect(outputs.map(({ taskId, agent: role, output }) => ({ taskId, role, output }))).toEqual([
      { taskId: 'research', role: 'Crew Manager', output: 'Checked: Work of You are researcher role' },
      { taskId: 'article', role: 'Crew Manager', output: 'Checked: Work of You are writer role' },
    ]);
    const starts = harness.events.flatMap((event) => (event.type === 'task-start' ? [event.agent] : []));
    expect(starts).toEqual(['Crew Manager', 'Crew Manager']);
    const requests = chatRequests(harness.fake);
    const managerRequests = requests.filter(isManager);
    // The manager has the two delegation tools and nothing else, and runs on manager_llm.
    expect(toolNames(managerRequests[0]!)).toEqual([delegateTool, askTool]);
    expect(managerRequests.every((request) => request.body.model === managerModel)).toBe(true);
    // Each task's coworker is the task's own agent, as in crewAI; coworkers get no delegation tools.
    const coworkerRequests = requests.filter((request) => !isManager(request));
    expect(coworkerRequests.map((request) => systemText(request).split('.')[0])).toEqual([
      'You are researcher role',
      'You are writer role',
    ]);
    expect(coworkerRequests.every((request) => toolNames(request).length === 0)).toBe(true);
    expect(taskText(coworkerRequests[0]!)).toContain('Current task: Current task: Do research');
    expect(taskText(coworkerRequests[0]!)).toContain('All we know');
    expect(steps().map(({ taskId, agent: role, tool }) => ({ taskId, role, tool }))).toEqual([
      { taskId: 'research', role: 'researcher role', tool: null },
      { taskId: 'research', role: 'Crew Manager', tool: 'Delegate work to coworker' },
      { taskId: 'research', role: 'Crew Manager', tool: null },
      { taskId: 'article', role: 'writer role', tool: null },
      { taskId: 'article', role: 'Crew Manager', tool: 'Delegate work to coworker' },
      { taskId: 'article', role: 'Crew Manager', tool: null },
    ]);
    expect(steps()[1]).toMatchObject({
      toolInput: { coworker: 'researcher role', context: 'All we know' },
      result: 'Work of You are researcher role',
    });
    // The coworker's calls count in the task's usage: manager twice, coworker once, 15 tokens each.
    expect(outputs[0]!.usage).toMatchObject({ totalTokens: 45, successfulRequests: 3 });
  });

  it('offers every agent of the crew as a coworker for a task that names no agent', async () => {
    harness.fake.respondWith((request) => {
      if (!isManager(request)) return { content: `Work of ${systemText(request).split('.')[0]}` };
      const [result] = toolResults(request);
      if (result === undefined) {
        return {
          toolCalls: [
            { name: delegateTool, arguments: { task: 'Edit it', context: 'Draft', coworker: 'editor role' } },
          ],
        };
      }
      return { content: `Checked: ${result}` };
    });
    const managed: TaskDefinition = {
      name: 'article',
      description: 'Do article',
      expectedOutput: 'The article result',
      humanInput: false,
    };
    const led = crew([agent('researcher'), agent('writer'), agent('editor')], [managed], {
      process: 'hierarchical',
      managerLlm: { model: `openai/${managerModel}` },
    });

    const outputs = completedOutputs(await harness.run(led));

    expect(outputs[0]).toMatchObject({
      agent: 'Crew Manager',
      output: 'Checked: Work of You are editor role',
    });
    const [first] = chatRequests(harness.fake);
    expect(coworkerRoles(first!)).toEqual(['researcher role', 'writer role', 'editor role']);
    expect(steps()[1]).toMatchObject({
      agent: 'Crew Manager',
      tool: 'Delegate work to coworker',
      toolInput: { coworker: 'editor role' },
    });
  });

  it("lets the crew's manager_agent lead, with only the delegation tools, on its own model", async () => {
    harness.fake.respondWith((request) => {
      if (!systemText(request).includes('boss role')) return { content: 'Done by the researcher.' };
      const [result] = toolResults(request);
      if (result === undefined) {
        return {
          toolCalls: [
            { name: delegateTool, arguments: { task: 'Go', context: '', coworker: 'researcher role' } },
          ],
        };
      }
      return { content: `Boss: ${result}` };
    });
    const led = crew(
      [agent('boss', { tools: ['lookup'], llm: { model: 'openai/boss-model' } }), agent('researcher')],
      [task('research', 'researcher')],
      { process: 'hierarchical', managerAgent: 'boss' },
    );

    const outputs = completedOutputs(await harness.run(led));

    expect(outputs[0]).toMatchObject({ agent: 'boss role', output: 'Boss: Done by the researcher.' });
    const [first] = chatRequests(harness.fake);
    expect(first!.body.model).toBe('boss-model');
    expect(toolNames(first!)).toEqual([delegateTool, askTool]);
  });

  it('lets the manager ask a coworker a question and use the answer', async () => {
    harness.fake.respondWith((request) => {
      if (!isManager(request)) return { content: 'The deadline is Friday.' };
      const [result] = toolResults(request);
      if (result === undefined) {
        return {
          toolCalls: [
            {
              name: askTool,
              arguments: {
                question: 'When is the deadline?',
                context: 'For the report',
                coworker: 'RESEARCHER  ROLE',
              },
            },
          ],
        };
      }
      return { content: `Answer: ${result}` };
    });
    const single = { ...hierarchical, tasks: hierarchical.tasks.slice(0, 1) };

    const outputs = completedOutputs(await harness.run(single));

    expect(outputs[0]!.output).toBe('Answer: The deadline is Friday.');
    const coworker = chatRequests(harness.fake).find((request) => !isManager(request))!;
    expect(taskText(coworker)).toContain('Current task: When is the deadline?');
    expect(taskText(coworker)).toContain('For the report');
    expect(steps()[1]).toMatchObject({ agent: 'Crew Manager', tool: 'Ask question to coworker' });
  });

  it('sends the error back to the manager when it names a coworker that does not exist', async () => {
    harness.fake.respondWith((request) => {
      const [result] = toolResults(request);
      if (result === undefined) {
        return {
          toolCalls: [{ name: delegateTool, arguments: { task: 'Write', context: 'x', coworker: 'Nobody' } }],
        };
      }
      return { content: 'Done without help.' };
    });
    const single = { ...hierarchical, tasks: hierarchical.tasks.slice(0, 1) };

    const outputs = completedOutputs(await harness.run(single));

    expect(outputs[0]!.output).toBe('Done without help.');
    const requests = chatRequests(harness.fake);
    expect(requests).toHaveLength(2);
    expect(toolResults(requests[1]!)).toEqual([
      "Error: there is no coworker 'Nobody'; it must be one of:\n- researcher role",
    ]);
  });

  it('sends a delegation without its arguments back to the manager as an error', async () => {
    harness.fake.respondWith((request) =>
      toolResults(request).length === 0
        ? { toolCalls: [{ name: delegateTool, arguments: { task: 'Write' } }] }
        : { content: 'Done alone.' },
    );
    const single = { ...hierarchical, tasks: hierarchical.tasks.slice(0, 1) };

    await harness.run(single);

    expect(toolResults(chatRequests(harness.fake)[1]!)).toEqual([
      `Error: invalid input for tool '${delegateTool}': context, coworker must be given as text`,
    ]);
  });

  it('pauses a human-input task after the manager answers, and retries it with the feedback when rejected', async () => {
    harness.fake.respondWith((request) => {
      if (!isManager(request)) return { content: `Draft for: ${taskText(request).split('\n')[0]}` };
      const [result] = toolResults(request);
      if (result === undefined) {
        return {
          toolCalls: [
            {
              name: delegateTool,
              arguments: { task: taskText(request), context: '', coworker: 'writer role' },
            },
          ],
        };
      }
      return { content: `Manager: ${result.length} characters` };
    });
    const reviewed = crew([agent('writer')], [task('draft', 'writer', { humanInput: true })], {
      process: 'hierarchical',
      managerLlm: { model: `openai/${managerModel}` },
    });

    const first = await harness.run(reviewed);
    if (first.kind !== 'paused') throw new Error('expected a pause');
    expect(first.output).toMatchObject({ taskId: 'draft', agent: 'Crew Manager', attempt: 1 });

    const rejection: HumanFeedback = {
      taskId: 'draft',
      attempt: 1,
      text: 'Make it shorter',
      approved: false,
      output: first.output.output,
    };
    harness.fake.requests.length = 0;
    const second = await harness.run(reviewed, { checkpoint: { outputs: [], feedback: [rejection] } });
    if (second.kind !== 'paused') throw new Error('expected a second pause');
    expect(second.output.attempt).toBe(2);
    const managerPrompt = taskText(chatRequests(harness.fake).find(isManager)!);
    expect(managerPrompt).toContain('Make it shorter');
    // The manager hands the feedback on to the coworker with the task.
    expect(taskText(chatRequests(harness.fake).find((request) => !isManager(request))!)).toContain(
      'Make it shorter',
    );

    const approval = { ...rejection, attempt: 2, approved: true, text: 'Good', output: second.output.output };
    const third = await harness.run(reviewed, {
      checkpoint: { outputs: [second.output], feedback: [rejection, approval] },
    });
    expect(completedOutputs(third).map((output) => output.attempt)).toEqual([2]);
  });
});

describe('delegation', () => {
  it('gives an agent with allow_delegation the delegation tools over its coworkers in a sequential crew', async () => {
    harness.fake.respondWith((request) => {
      const system = systemText(request);
      if (system.includes('researcher role')) return { content: 'Three facts.' };
      const [result] = toolResults(request);
      if (result === undefined) {
        return {
          content: 'Asking the researcher.',
          toolCalls: [
            {
              name: delegateTool,
              arguments: { task: 'Find facts', context: 'On bees', coworker: 'researcher role' },
            },
          ],
        };
      }
      return { content: `Article using: ${result}` };
    });
    const definition = crew(
      [agent('writer', { allowDelegation: true }), agent('researcher'), agent('editor')],
      [task('article', 'writer')],
    );

    const outputs = completedOutputs(await harness.run(definition));

    expect(outputs[0]).toMatchObject({ agent: 'writer role', output: 'Article using: Three facts.' });
    const [writerRequest] = chatRequests(harness.fake);
    expect(toolNames(writerRequest!)).toEqual([delegateTool, askTool]);
    const description = (writerRequest!.body.tools[0] as { function: { description: string } }).function
      .description;
    expect(description).toContain('- researcher role\n- editor role');
    expect(description).not.toContain('- writer role');
    expect(steps().map(({ agent: role, tool }) => `${role}:${tool ?? 'final'}`)).toEqual([
      'researcher role:final',
      'writer role:Delegate work to coworker',
      'writer role:final',
    ]);
  });

  it('fails the task with a clear message when agents keep delegating to each other', async () => {
    harness.fake.respondWith((request) => {
      const other = systemText(request).includes('ping role') ? 'pong role' : 'ping role';
      return {
        toolCalls: [{ name: delegateTool, arguments: { task: 'Your turn', context: '', coworker: other } }],
      };
    });
    const definition = crew(
      [agent('ping', { allowDelegation: true }), agent('pong', { allowDelegation: true })],
      [task('rally', 'ping')],
    );

    const error = await failureOf(harness.run(definition));

    expect(error.code).toBe('TASK_FAILED');
    expect(error.message).toBe(
      "Task 'rally' failed: delegation went more than 3 levels deep " +
        '(ping role -> pong role -> ping role -> pong role -> ping role); the agents kept handing the work on',
    );
    // Four delegations ran, each one model call; the fifth was refused before any call.
    expect(chatRequests(harness.fake)).toHaveLength(4);
  });

  it('fails the task when one attempt delegates more than 20 times', async () => {
    const delegation = {
      name: delegateTool,
      arguments: { task: 'Again', context: '', coworker: 'researcher role' },
    };
    harness.fake.respondWith((request) =>
      isManager(request) ? { toolCalls: Array.from({ length: 21 }, () => delegation) } : { content: 'Done.' },
    );
    const single = { ...hierarchical, tasks: hierarchical.tasks.slice(0, 1) };

    const error = await failureOf(harness.run(single));

    expect(error.message).toBe(
      "Task 'research' failed: more than 20 delegations in one attempt; the agents kept handing the work on",
    );
    expect(chatRequests(harness.fake).filter((request) => !isManager(request))).toHaveLength(20);
  });

  it('goes on after a restart from the last saved step of both the manager and the coworker', async () => {
    const looked: unknown[] = [];
    const lookup: Tool = {
      name: 'lookup',
      description: 'Looks things up',
      inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
      run: (input) => {
        looked.push(input);
        return Promise.resolve('found');
      },
    };
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15, successfulRequests: 1 };
    const journal: StepJournal = {
      taskId: 'research',
      attempt: 1,
      entries: [
        {
          kind: 'model',
          scope: '',
          usage,
          answer: {
            text: '',
            toolCalls: [
              {
                id: 'm1',
                name: delegateTool,
                input: { task: 'Dig', context: '', coworker: 'researcher role' },
              },
            ],
          },
        },
        {
          kind: 'model',
          scope: 'm1>',
          usage,
          answer: { text: '', toolCalls: [{ id: 'c1', name: 'lookup', input: { query: 'bees' } }] },
        },
        { kind: 'tool', toolCallId: 'm1>c1', result: 'found earlier' },
      ],
    };
    harness.fake.respondWith((request) =>
      isManager(request)
        ? { content: `Manager: ${toolResults(request)[0]}` }
        : { content: `Coworker: ${toolResults(request)[0]}` },
    );
    const withTool = crew([agent('researcher', { tools: ['lookup'] })], [task('research', 'researcher')], {
      process: 'hierarchical',
      managerLlm: { model: `openai/${managerModel}` },
    });

    const outcome = await harness.run(withTool, {
      tools: [lookup],
      checkpoint: { outputs: [], feedback: [], journal },
    });

    expect(completedOutputs(outcome)[0]!.output).toBe('Manager: Coworker: found earlier');
    expect(looked).toEqual([]);
    // Only the two calls that had not completed are made: the coworker's answer after its tool, then the manager's.
    const requests = chatRequests(harness.fake);
    expect(requests.map((request) => (isManager(request) ? 'manager' : 'coworker'))).toEqual([
      'coworker',
      'manager',
    ]);
    // The replayed answers count: four calls of 15 tokens.
    expect(completedOutputs(outcome)[0]!.usage).toMatchObject({ totalTokens: 60, successfulRequests: 4 });
  });
});
