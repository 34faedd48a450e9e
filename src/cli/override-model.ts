import type { CrewDefinition, ModelSpec } from '../domain/crew.ts';

/** The crew with every model it names (agents', the crew's and the manager's) replaced by `model`. */
export function withModel(crew: CrewDefinition, model: string): CrewDefinition {
  // Call settings go too: they were written for the models replaced, and a replay file does not take them.
  const spec: ModelSpec = { model };
  const agents = new Map(
    Array.from(crew.agents, ([name, agent]) => [
      name,
      {
        ...agent,
        llm: spec,
        ...(agent.functionCallingLlm === undefined ? {} : { functionCallingLlm: spec }),
      },
    ]),
  );
  return {
    ...crew,
    llm: spec,
    ...(crew.managerLlm === undefined ? {} : { managerLlm: spec }),
    ...(crew.functionCallingLlm === undefined ? {} : { functionCallingLlm: spec }),
    agents,
  };
}
