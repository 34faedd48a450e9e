import { describe, expect, it } from 'vitest';
import { exampleCrew, makeExecution, taskOutput } from '../../test/api/support/example-crew.ts';
import { statusViewSchema } from './response-schemas.ts';
import { toStatusView } from './status-view.ts';

const now = new Date('2025-01-01T10:01:00.000Z');

describe('toStatusView', () => {
  it('describes a waiting execution', () => {
    const view = toStatusView(makeExecution({ id: 'e1' }), exampleCrew, now);

    expect(view).toMatchObject({
      state: 'PENDING',
      status: 'Waiting to start',
      result: null,
      current_task: null,
      progress: { completed: 0, total: 3, remaining: 3, current: null, current_agent: null },
      last_step: null,
      last_executed_task: null,
      tasks: [],
      pending_human_input: null,
      execution_time: null,
      usage_metrics: { total_tokens: 0, prompt_tokens: 0, completion_tokens: 0, successful_requests: 0 },
    });
  });

  it('names the current agent with the inputs filled into its role', () => {
    const crew = {
      ...exampleCrew,
      agents: new Map(
        [...exampleCrew.agents].map(([name, agent]) => [name, { ...agent, role: `{topic} ${agent.role}` }]),
      ),
    };
    const view = toStatusView(makeExecution({ id: 'e0', state: 'RUNNING', currentTask: 'write' }), crew, now);

    expect(view.progress.current_agent).toBe('AI Technical Writer');
  });

  it('names the running task, its position and its agent, and counts time up to now', () => {
    const view = toStatusView(
      makeExecution({
        id: 'e2',
        state: 'RUNNING',
        currentTask: 'write',
        outputs: [taskOutput('research', 'R'), taskOutput('review', 'V')],
        startedAt: new Date('2025-01-01T10:00:30.000Z'),
        lastStep: {
          taskId: 'write',
          agent: 'Technical Writer',
          prompt: 'Write it',
          thought: 'I will search first',
          tool: 'search',
          toolInput: { query: 'AI' },
          result: '3 results',
        },
      }),
      exampleCrew,
      now,
    );

    expect(view.status).toBe('Running task write (3 of 3)');
    expect(view.progress).toEqual({
      completed: 2,
      total: 3,
      remaining: 1,
      current: 'write',
      current_agent: 'Technical Writer',
    });
    expect(view.execution_time).toBe(30);
    expect(view.last_step).toEqual({
      kickoff_id: 'e2',
      task_id: 'write',
      agent: 'Technical Writer',
      prompt: 'Write it',
      thought: 'I will search first',
      tool: 'search',
      tool_input: { query: 'AI' },
      result: '3 results',
      meta: null,
    });
    expect(view.last_executed_task).toMatchObject({ task_id: 'review', name: 'review', output: 'V' });
  });

  it('says exactly Pending Human Input while paused', () => {
    const view = toStatusView(
      makeExecution({
        id: 'e3',
        state: 'PAUSED',
        pending: { taskId: 'review', attempt: 1, output: taskOutput('review', 'Draft') },
      }),
      exampleCrew,
      now,
    );

    expect(view.status).toBe('Pending Human Input');
    expect(view.current_task).toBe('review');
    expect(view.pending_human_input).toEqual({ task_id: 'review', output: 'Draft', attempt: 1 });
  });

  it('puts the error text in result on failure', () => {
    const view = toStatusView(
      makeExecution({ id: 'e4', state: 'FAILED', error: 'Task research failed: timeout' }),
      exampleCrew,
      now,
    );

    expect(view).toMatchObject({
      result: 'Task research failed: timeout',
      error: 'Task research failed: timeout',
    });
    expect(view.status).toBe('Execution failed after 0 of 3 tasks');
  });

  it('produces what the response schema accepts, in every state', () => {
    for (const state of ['PENDING', 'RUNNING', 'PAUSED', 'SUCCESS', 'FAILED', 'REVOKED'] as const) {
      const view = toStatusView(makeExecution({ id: `s-${state}`, state }), exampleCrew, now);
      expect(statusViewSchema.safeParse(view).success).toBe(true);
    }
  });

  it('holds a long answer whole where it belongs and clips its copies in last_step and last_executed_task', () => {
    const answer = 'a'.repeat(100_000);
    const view = toStatusView(
      makeExecution({
        id: 'e5',
        state: 'SUCCESS',
        outputs: [taskOutput('research', 'R'), taskOutput('review', 'V'), taskOutput('write', answer)],
        result: answer,
        lastStep: {
          taskId: 'write',
          agent: 'Technical Writer',
          prompt: `Write it: ${'p'.repeat(50_000)}`,
          thought: answer,
          tool: null,
          toolInput: null,
          result: answer,
        },
      }),
      exampleCrew,
      now,
    );

    const clipped = `${'a'.repeat(4096)}… [clipped: 95904 more characters]`;
    expect(view.result).toBe(answer);
    expect(view.tasks[2]!.output).toBe(answer);
    expect(view.last_executed_task).toMatchObject({ task_id: 'write', output: clipped });
    expect(view.last_step).toMatchObject({ thought: clipped, result: clipped });
    expect(view.last_step!.prompt).toMatch(/^Write it: p+… \[clipped: 45914 more characters\]$/);
    expect(statusViewSchema.safeParse(view).success).toBe(true);
  });
});
