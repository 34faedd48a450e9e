import type { AgentDefinition, CrewDefinition, TaskDefinition } from '../../../src/domain/crew.ts';
import type { Execution } from '../../../src/domain/execution.ts';
import type { TaskOutput } from '../../../src/domain/task-output.ts';
import { emptyUsage } from '../../../src/domain/usage.ts';

function agent(name: string, role: string): AgentDefinition {
  return {
    name,
    role,
    goal: `Be a good ${role}`,
    backstory: 'Experienced.',
    tools: [],
    maxIter: 20,
    allowDelegation: false,
    verbose: false,
  };
}

function task(name: string, agentName: string, humanInput = false): TaskDefinition {
  return {
    name,
    description: `Do ${name} about {topic}`,
    expectedOutput: `A ${name} for {current_year}`,
    agent: agentName,
    humanInput,
  };
}

/** Three tasks; the second waits for human feedback. */
export const exampleCrew: CrewDefinition = {
  name: 'research-crew',
  process: 'sequential',
  agents: new Map([
    ['researcher', agent('researcher', 'Senior Researcher')],
    ['writer', agent('writer', 'Technical Writer')],
  ]),
  tasks: [task('research', 'researcher'), task('review', 'researcher', true), task('write', 'writer')],
  requiredInputs: ['topic', 'current_year'],
};

export function taskOutput(taskId: string, output: string, attempt = 1): TaskOutput {
  return {
    taskId,
    description: `Do ${taskId} about AI`,
    expectedOutput: `A ${taskId} for 2025`,
    summary: output.split(' ').slice(0, 3).join(' '),
    agent: taskId === 'write' ? 'Technical Writer' : 'Senior Researcher',
    output,
    outputJson: null,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, successfulRequests: 1 },
    attempt,
  };
}

/** An execution with sensible defaults; tests override what they look at. */
export function makeExecution(overrides: Partial<Execution> & { id: string }): Execution {
  const createdAt = new Date('2025-01-01T10:00:00.000Z');
  return {
    state: 'PENDING',
    inputs: { topic: 'AI', current_year: '2025' },
    meta: null,
    webhooks: { taskUrl: null, stepUrl: null, crewUrl: null, humanInput: null },
    owner: { tokenId: 'org-token', userId: null },
    outputs: [],
    feedback: [],
    pending: null,
    currentTask: null,
    lastStep: null,
    usage: emptyUsage,
    result: null,
    resultJson: null,
    error: null,
    createdAt,
    updatedAt: createdAt,
    lastEventSequence: 0,
    revision: 0,
    startedAt: null,
    finishedAt: null,
    ...overrides,
  };
}
