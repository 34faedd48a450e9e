import { renderAgent } from '../crew/index.ts';
import type { AgentDefinition, TaskDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import { agentTools } from './agent-resources.ts';
import type { RunContext } from './run-context.ts';
import { othersThan } from './delegation-tools.ts';
import { managerAgent } from './manager-agent.ts';
import type { Tool } from './tool.ts';

/** The agent that answers for a task attempt, its own tools, and the coworkers it may delegate to. */
export interface TaskLead {
  readonly agent: AgentDefinition;
  readonly tools: readonly Tool[];
  readonly coworkers: readonly AgentDefinition[];
}

/**
 * Who leads `task` (rendered, with its rendered agent `assigned`). Sequential: the task's agent with its tools, and
 * the crew's other agents as coworkers when it has `allow_delegation`. Hierarchical, as crewAI does it: the manager,
 * with no tools of its own, delegating to the task's agent, or to any agent of the crew when the task names none.
 */
export function taskLead(
  run: RunContext,
  task: TaskDefinition,
  assigned: AgentDefinition | undefined,
): TaskLead {
  const { request } = run;
  if (request.crew.process === 'hierarchical') {
    const manager = renderAgent(managerAgent(request.crew), request.inputs);
    return {
      agent: manager,
      tools: [],
      coworkers: assigned === undefined ? othersThan(run, manager) : [assigned],
    };
  }
  if (assigned === undefined) {
    // loadCrew rejects such crews, so this only happens with a hand-built definition.
    throw new CrewdError(
      'CREW_INVALID',
      `Task "${task.name}" names no agent, which only a hierarchical crew allows`,
    );
  }
  return {
    agent: assigned,
    tools: agentTools(request, assigned, task),
    coworkers: assigned.allowDelegation ? othersThan(run, assigned) : [],
  };
}
