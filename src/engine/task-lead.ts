import { renderAgent } from '../crew/index.ts';
import type { AgentDefinition, TaskDefinition } from '../domain/crew.ts';
import { agentTools } from './agent-resources.ts';
import type { CrewRun } from './crew-run.ts';
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
 * with no tools of its own, delegating to the task's agent.
 */
export function taskLead(run: CrewRun, task: TaskDefinition, assigned: AgentDefinition): TaskLead {
  const { request } = run;
  if (request.crew.process === 'hierarchical') {
    return {
      agent: renderAgent(managerAgent(request.crew), request.inputs),
      tools: [],
      coworkers: [assigned],
    };
  }
  return {
    agent: assigned,
    tools: agentTools(request, assigned, task),
    coworkers: assigned.allowDelegation ? othersThan(run, assigned) : [],
  };
}
