import { interpolate } from '../crew/index.ts';
import type { AgentDefinition, CrewDefinition, CrewInputs, TaskDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';

/** The manager crewd builds from `manager_llm` when a hierarchical crew names no `manager_agent`. */
const builtManager = {
  name: 'crew_manager',
  role: 'Crew Manager',
  goal: 'Get every task done as well as it can be done by directing the right coworker to it.',
  backstory:
    'You are an experienced manager who knows what each member of your team does best. You do not do the work ' +
    'yourself: you hand each piece of it to the coworker best placed to do it, give them everything they need to ' +
    'know, ask them questions when something is unclear, and check that what they give back meets the goal.',
} as const;

/**
 * The agent that leads a hierarchical crew's tasks: the crew's `manager_agent`, or one built like crewAI's
 * (its own role, goal and backstory, the `manager_llm` model). It has no tools of its own: it works through its
 * coworkers only. `CONFIG_INVALID` when the crew names neither.
 */
export function managerAgent(crew: CrewDefinition): AgentDefinition {
  if (crew.managerAgent !== undefined) {
    const chosen = crew.agents.get(crew.managerAgent);
    if (chosen === undefined) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `The crew's manager_agent '${crew.managerAgent}' is not an agent of the crew`,
      );
    }
    return { ...chosen, tools: [], mcps: [], allowDelegation: true };
  }
  if (crew.managerLlm === undefined) {
    throw new CrewdError(
      'CONFIG_INVALID',
      "A hierarchical crew needs a manager: set manager_llm or manager_agent in crew.yaml (or crew.py's Crew(...))",
    );
  }
  return {
    ...builtManager,
    llm: crew.managerLlm,
    tools: [],
    maxIter: 20,
    allowDelegation: true,
    verbose: false,
  };
}

/**
 * The role, placeholders filled from `inputs`, of the agent that answers for `task`: the manager in a hierarchical
 * crew, the task's own agent otherwise. The agent's name when it cannot be found; null for a task without one.
 */
export function leadRole(crew: CrewDefinition, task: TaskDefinition, inputs: CrewInputs): string | null {
  const lead = crew.process === 'hierarchical' ? definedManager(crew) : agentOf(crew, task);
  return lead === undefined ? (task.agent ?? null) : interpolate(lead.role, inputs);
}

function agentOf(crew: CrewDefinition, task: TaskDefinition): AgentDefinition | undefined {
  return task.agent === undefined ? undefined : crew.agents.get(task.agent);
}

/** The manager, or undefined when the crew names none (checkCrew refuses such crews before they run). */
function definedManager(crew: CrewDefinition): AgentDefinition | undefined {
  try {
    return managerAgent(crew);
  } catch {
    return undefined;
  }
}
