import type { AgentDefinition, CrewDefinition } from '../domain/crew.ts';

const agent: AgentDefinition = {
  name: '<agent>',
  role: '<role>',
  goal: '<goal>',
  backstory: '<backstory>',
  tools: [],
  maxIter: 20,
  allowDelegation: false,
  verbose: false,
};

/**
 * The crew the public API description (`/openapi.json`, `/docs`) is written for: the served crew's inputs, which
 * a kickoff must name, and stand-ins for everything else. Roles, goals, task texts, tools and MCP servers are
 * what `GET /crew` keeps behind a token (a flow's input descriptions and defaults too); the description needs none.
 */
export function publicExampleCrew(crew: CrewDefinition): CrewDefinition {
  return {
    name: 'crew',
    process: 'sequential',
    agents: new Map([[agent.name, agent]]),
    tasks: [
      {
        name: '<task_id>',
        description: '<description>',
        expectedOutput: '<expected output>',
        agent: agent.name,
        humanInput: true,
      },
    ],
    requiredInputs: crew.requiredInputs,
    // A flow's inputs keep their types and whether they are required; their descriptions and defaults stay private.
    ...(crew.inputFields === undefined
      ? {}
      : {
          inputFields: Object.fromEntries(
            Object.entries(crew.inputFields).map(([name, field]) => [
              name,
              { type: field.type, required: field.required },
            ]),
          ),
        }),
  };
}
