import { z } from 'zod';
import type { CrewDefinition, InputField } from '../domain/crew.ts';

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
  inputs: z.array(z.string()).describe('The inputs a kickoff may give, as GET /inputs'),
  input_fields: z
    .array(
      z.object({
        name: z.string(),
        required: z
          .boolean()
          .describe(
            "A kickoff must give it: a crew's placeholders, a flow state's required fields without a default",
          ),
        type: z
          .enum(['string', 'number', 'integer', 'boolean', 'object', 'array'])
          .nullable()
          .describe("Its JSON type; null where any JSON value is taken (a flow's dict state)"),
        description: z.string().nullable(),
        default: z
          .unknown()
          .optional()
          .describe('What the state takes when a kickoff leaves it out; absent when there is no default'),
      }),
    )
    .describe('Each input of GET /inputs, in its order, with what it takes'),
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
    input_fields: crew.requiredInputs.map((name) => {
      // A crew's placeholders are all required text; a flow's state fields say what they take.
      const field: InputField = crew.inputFields?.[name] ?? { type: 'string', required: true };
      return {
        name,
        required: field.required,
        type: field.type ?? null,
        description: field.description ?? null,
        ...('default' in field ? { default: field.default } : {}),
      };
    }),
  };
}
