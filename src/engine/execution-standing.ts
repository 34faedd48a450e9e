import type { CrewDefinition } from '../domain/crew.ts';
import type { Execution } from '../domain/execution.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import { leadRole } from './manager-agent.ts';

/** Where an execution stands in its crew's work, as `/status` shows it. */
export interface Standing {
  /** Tasks with an accepted output. */
  readonly completed: number;
  readonly total: number;
  readonly remaining: number;
  /** The task being worked on or awaiting feedback, or null. */
  readonly current: string | null;
  /** 1-based place of `current` in the crew's task list, or null. */
  readonly position: number | null;
  /** The role of the agent working now: the task's agent, the manager, or a coworker one of them asked. */
  readonly currentAgent: string | null;
}

type ExecutionProgress = Pick<Execution, 'outputs' | 'pending' | 'currentTask' | 'lastStep' | 'inputs'>;

/**
 * Where `execution` stands. Counts tasks by their accepted outputs, not by position, and names the agent from
 * what the engine recorded: after a tool call (a delegation included) its maker goes on working; before any step
 * of the task, or after a coworker's final answer, the task's lead agent is the one at work.
 */
export function whereExecutionStands(crew: CrewDefinition, execution: ExecutionProgress): Standing {
  const total = crew.tasks.length;
  const done = new Set(execution.outputs.map((output) => output.taskId));
  const completed = crew.tasks.filter((task) => done.has(task.name)).length;
  const current = execution.pending?.taskId ?? execution.currentTask;
  const index = current === null ? -1 : crew.tasks.findIndex((task) => task.name === current);
  return {
    completed,
    total,
    remaining: total - completed,
    current,
    position: index < 0 ? null : index + 1,
    currentAgent: current === null ? null : workingAgent(crew, execution, current),
  };
}

/** True when approving `taskId` leaves no task of the crew without an accepted output: the execution is done. */
export function approvalCompletes(
  crew: CrewDefinition,
  outputs: readonly TaskOutput[],
  taskId: string,
): boolean {
  const done = new Set(outputs.map((output) => output.taskId)).add(taskId);
  return crew.tasks.every((task) => done.has(task.name));
}

function workingAgent(crew: CrewDefinition, execution: ExecutionProgress, taskId: string): string | null {
  const step = execution.lastStep;
  if (execution.pending === null && step?.taskId === taskId && step.tool !== null) return step.agent;
  const task = crew.tasks.find((candidate) => candidate.name === taskId);
  if (task === undefined) return null;
  return leadRole(crew, task, execution.inputs);
}
