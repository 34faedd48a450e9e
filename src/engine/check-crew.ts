import type { AgentDefinition, CrewDefinition, ModelSpec, TaskDefinition } from '../domain/crew.ts';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import { agentModel, agentToolCallingModel, agentTools } from './agent-resources.ts';
import { findGuardrail } from './guardrails.ts';
import { managerAgent } from './manager-agent.ts';
import { processFor } from './crew-process.ts';
import type { RunCrewRequest } from './run-request.ts';

/**
 * Checks before serving that the engine runs the crew's process and that every task's agent has a model that
 * resolves and only tools and guardrail functions that exist, so a misconfigured crew stops at start with one message instead of failing
 * its first executions.
 */
export function checkCrew(
  crew: CrewDefinition,
  resources: Pick<RunCrewRequest, 'models' | 'tools' | 'defaultModel'>,
): void {
  processFor(crew.process);
  const request = { crew, ...resources };
  for (const task of crew.tasks) {
    for (const agent of taskWorkers(crew, task)) {
      const models = [agentModel(request, agent), agentToolCallingModel(request, agent)];
      for (const model of models) resolveFor(`Agent '${agent.name}'`, model, resources);
      agentTools(request, agent, task);
    }
    for (const spec of task.guardrails ?? []) {
      if (spec.kind === 'function') findGuardrail(resources.tools, task, spec);
    }
  }
  if (crew.process === 'hierarchical') {
    const manager = managerAgent(crew);
    resolveFor(`The crew's manager ('${manager.name}')`, agentModel(request, manager), resources);
  } else if (crew.managerLlm !== undefined) {
    resolveFor("The crew's manager_llm", crew.managerLlm, resources);
  }
}

/** Resolves `model` now, so a missing key or unknown provider is refused at start naming who uses the model. */
function resolveFor(
  user: string,
  model: ModelSpec | undefined,
  resources: Pick<RunCrewRequest, 'models'>,
): void {
  if (model === undefined) return;
  try {
    resources.models(model);
  } catch (error) {
    if (!isCrewdError(error)) throw error;
    throw new CrewdError(error.code, `${user}: ${error.message}`, { cause: error });
  }
}

/**
 * The agents that may work on `task`: the one it names, or, when it names none (a hierarchical crew's manager leads
 * it), every agent but the manager. The loader already refuses tasks naming missing agents.
 */
function taskWorkers(crew: CrewDefinition, task: TaskDefinition): AgentDefinition[] {
  if (task.agent !== undefined) {
    const agent = crew.agents.get(task.agent);
    return agent === undefined ? [] : [agent];
  }
  return [...crew.agents.values()].filter((agent) => agent.name !== crew.managerAgent);
}
