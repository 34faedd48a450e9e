import type { CrewDefinition } from '../domain/crew.ts';
import { agentModelId, agentTools } from './agent-resources.ts';
import { processFor } from './run-crew.ts';
import type { RunCrewRequest } from './run-crew-types.ts';

/**
 * Checks before serving that the engine runs the crew's process and that every task's agent has a model that
 * resolves and only tools that exist, so a misconfigured crew stops at start with one message instead of failing
 * its first executions.
 */
export function checkCrew(
  crew: CrewDefinition,
  resources: Pick<RunCrewRequest, 'models' | 'tools' | 'defaultModel'>,
): void {
  processFor(crew.process);
  const request = { crew, ...resources };
  for (const task of crew.tasks) {
    const agent = crew.agents.get(task.agent);
    if (agent === undefined) continue; // the loader already refuses tasks naming missing agents
    resources.models(agentModelId(request, agent));
    agentTools(request, agent, task);
  }
}
