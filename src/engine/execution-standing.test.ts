import { describe, expect, it } from 'vitest';
import { exampleCrew, makeExecution, taskOutput } from '../../test/api/support/example-crew.ts';
import type { AgentStep } from '../domain/events.ts';
import { approvalCompletes, whereExecutionStands } from './execution-standing.ts';

const [first, second, third] = exampleCrew.tasks.map((task) => task.name) as [string, string, string];

function step(taskId: string, agent: string, tool: string | null): AgentStep {
  return { taskId, agent, prompt: 'p', thought: 't', tool, toolInput: null, result: 'r' };
}

describe('whereExecutionStands', () => {
  it('counts accepted outputs by task, whatever their order and however many tasks an agent has', () => {
    const crew = {
      ...exampleCrew,
      tasks: exampleCrew.tasks.map((task) => ({ ...task, agent: 'researcher' })),
    };
    const execution = makeExecution({
      id: 'e',
      state: 'RUNNING',
      outputs: [taskOutput(second, 'b'), taskOutput(second, 'b')],
      currentTask: first,
    });

    const standing = whereExecutionStands(crew, execution);

    expect(standing).toMatchObject({ completed: 1, total: 3, remaining: 2, current: first, position: 1 });
  });

  it('names the coworker whose tool call was the last step, then the lead again after its final answer', () => {
    const crew = { ...exampleCrew, process: 'hierarchical' as const, managerLlm: { model: 'openai/x' } };
    const working = makeExecution({
      id: 'e',
      state: 'RUNNING',
      currentTask: first,
      lastStep: step(first, 'Coworker', 'search'),
    });
    const answered = makeExecution({
      id: 'e',
      state: 'RUNNING',
      currentTask: first,
      lastStep: step(first, 'Coworker', null),
    });
    const stale = makeExecution({
      id: 'e',
      state: 'RUNNING',
      currentTask: second,
      lastStep: step(first, 'Coworker', 'x'),
    });

    expect(whereExecutionStands(crew, working).currentAgent).toBe('Coworker');
    expect(whereExecutionStands(crew, answered).currentAgent).toBe('Crew Manager');
    expect(whereExecutionStands(crew, stale).currentAgent).toBe('Crew Manager');
  });
});

describe('whereExecutionStands for a task without an agent', () => {
  it('names the manager of the hierarchical crew that leads it, then the coworker it asked', () => {
    const crew = {
      ...exampleCrew,
      process: 'hierarchical' as const,
      managerLlm: { model: 'openai/x' },
      tasks: exampleCrew.tasks.map(({ agent: _assigned, ...task }) => task),
    };
    const started = makeExecution({ id: 'e', state: 'RUNNING', currentTask: first });
    const delegated = makeExecution({
      id: 'e',
      state: 'RUNNING',
      currentTask: first,
      lastStep: step(first, 'Coworker', 'search'),
    });

    expect(whereExecutionStands(crew, started)).toMatchObject({
      current: first,
      currentAgent: 'Crew Manager',
    });
    expect(whereExecutionStands(crew, delegated).currentAgent).toBe('Coworker');
  });
});

describe('approvalCompletes', () => {
  it('is true only when every other task has its output', () => {
    expect(approvalCompletes(exampleCrew, [taskOutput(first, 'a'), taskOutput(second, 'b')], third)).toBe(
      true,
    );
    expect(approvalCompletes(exampleCrew, [taskOutput(first, 'a')], third)).toBe(false);
    // A human-input task in the middle, approved after the later ones ran: nothing is left.
    expect(approvalCompletes(exampleCrew, [taskOutput(first, 'a'), taskOutput(third, 'c')], second)).toBe(
      true,
    );
  });
});
