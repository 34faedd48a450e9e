import type { CrewDefinition } from '../domain/crew.ts';

/** The crew with every model it names (agents', the crew's and the manager's) replaced by `model`. */
export function withModel(crew: CrewDefinition, model: string): CrewDefinition {
  const agents = new Map(Array.from(crew.agents, ([name, agent]) => [name, { ...agent, llm: model }]));
  return {
    ...crew,
    llm: model,
    ...(crew.managerLlm === undefined ? {} : { managerLlm: model }),
    agents,
  };
}
