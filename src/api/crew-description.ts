import { z } from 'zod';
import type { CrewDefinition } from '../domain/crew.ts';

/** `GET /crew`: what the crew is made of, for the console's kickoff form and for other clients. */
export const crewDescriptionSchema = z.object({
  name: z.string(),
  process: z.enum(['sequential', 'hierarchical']),
  agents: z.array(
    z.object({
      name: z.string().describe('The key in agents.yaml'),
      role: z.string().describe('As written, before placeholders are filled'),
      goal: z.string(),
      model: z
        .string()
        .nullable()
        .describe("The agent's or crew's llm; null when the server default applies"),
      tools: z.array(z.string()),
      allow_delegation: z.boolean(),
    }),
  ),
  tasks: z.array(
    z.object({
      name: z.string().describe('The task_id clients see and send back on /resume'),
      description: z.string(),
      expected_output: z.string(),
      agent: z
        .string()
        .nullable()
        .describe(
          "The key of the agent that performs it; null when a hierarchical crew's manager leads it alone",
        ),
      human_input: z.boolean().describe('The execution pauses for feedback after this task'),
      output_format: z.enum(['raw', 'json']),
      output_json: z.record(z.string(), z.unknown()).nullable().describe('The JSON Schema of a json output'),
    }),
  ),
  inputs: z.array(z.string()).describe('The placeholders a kickoff must fill, as GET /inputs'),
});
export type CrewDescription = z.infer<typeof crewDescriptionSchema>;

export function describeCrew(crew: CrewDefinition): CrewDescription {
  return {
    name: crew.name,
    process: crew.process,
    agents: [...crew.agents.values()].map((agent) => ({
      name: agent.name,
      role: agent.role,
      goal: agent.goal,
      model: (agent.llm ?? crew.llm)?.model ?? null,
      tools: [...agent.tools],
      allow_delegation: agent.allowDelegation,
    })),
    tasks: crew.tasks.map((task) => ({
      name: task.name,
      description: task.description,
      expected_output: task.expectedOutput,
      agent: task.agent ?? null,
      human_input: task.humanInput,
      output_format: task.outputJson === undefined ? 'raw' : 'json',
      output_json: task.outputJson ?? null,
    })),
    inputs: [...crew.requiredInputs],
  };
}
