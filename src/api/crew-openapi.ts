import { z } from 'zod';
import type { CrewDefinition } from '../domain/crew.ts';
import { streamEventTypes } from '../service/stream-events.ts';
import { responseExamples } from './openapi-examples.ts';
import {
  crewPayloadSchema,
  humanInputDeadlinePayloadSchema,
  humanInputPayloadSchema,
  stepPayloadSchema,
  taskPayloadSchema,
} from '../domain/webhook-payloads.ts';

type JsonObject = Record<string, unknown>;

/** Which tag each path belongs to; the rest are operations. */
const tags = [
  {
    name: 'Crew',
    description: "The hosted crew service's interface: inputs, kickoff, status, resume, cancel",
  },
  { name: 'Executions', description: 'Listing executions, their event streams and webhook deliveries' },
  {
    name: 'Schedules and triggers',
    description: 'The crew on a cron expression, and started by other systems',
  },
  { name: 'Operations', description: 'Health, readiness and metrics' },
];

function tagOf(path: string): string {
  if (path.startsWith('/executions')) return 'Executions';
  if (path.startsWith('/schedules') || path.startsWith('/triggers')) return 'Schedules and triggers';
  if (path.startsWith('/health') || path === '/metrics') return 'Operations';
  return 'Crew';
}

const streamEnvelopeSchema = z.object({
  events: z.array(
    z.object({
      id: z.string(),
      execution_id: z.string(),
      timestamp: z.string().describe('ISO 8601'),
      type: z.enum(streamEventTypes),
      data: z.record(z.string(), z.unknown()).describe("The fields of crewAI's event class of this type"),
    }),
  ),
});

const webhookPayloads: readonly [string, string, z.ZodType][] = [
  ['task', 'A task produced its answer (taskWebhookUrl)', taskPayloadSchema],
  [
    'step',
    'An agent step: a tool call with its result, or the final answer (stepWebhookUrl)',
    stepPayloadSchema,
  ],
  ['crew', 'The execution ended: succeeded, failed or was cancelled (crewWebhookUrl)', crewPayloadSchema],
  ['humanInput', 'A task waits for human feedback (humanInputWebhook.url)', humanInputPayloadSchema],
  [
    'humanInputDeadline',
    "A review's deadline passed and crewd answered it as configured (humanInputWebhook.url)",
    humanInputDeadlinePayloadSchema,
  ],
  ['events', 'Event streaming as on the hosted platform (webhooks.url)', streamEnvelopeSchema],
];

/**
 * The API description made for this crew: the kickoff body names the crew's inputs, routes carry tags and
 * examples, and the webhooks crewd sends are described as OpenAPI 3.1 `webhooks`.
 */
export function openApiForCrew(document: JsonObject, crew: CrewDefinition): JsonObject {
  const paths = (document.paths ?? {}) as Record<string, Record<string, JsonObject>>;
  const exampleInputs = Object.fromEntries(crew.requiredInputs.map((name) => [name, `<${name}>`]));
  const firstReviewed = crew.tasks.find((task) => task.humanInput)?.name ?? crew.tasks[0]?.name ?? 'task';
  const examples = responseExamples(crew);
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      operation.tags = [tagOf(path)];
      const example = examples[`${method.toUpperCase()} ${path}`];
      const responses = operation.responses as Record<string, JsonObject> | undefined;
      const answer = responses?.['200'] ?? responses?.['201'];
      const json = (answer?.content as Record<string, JsonObject> | undefined)?.['application/json'];
      if (json !== undefined && example !== undefined) json.example = example;
    }
  }
  const kickoff = bodySchemaOf(paths['/kickoff']?.post);
  if (kickoff !== undefined) {
    const properties = (kickoff.schema.properties ?? {}) as JsonObject;
    properties.inputs = {
      type: 'object',
      description:
        crew.inputFields === undefined
          ? "Values for the crew's placeholders (GET /inputs); other keys are passed along"
          : "Values for the flow state's fields (GET /inputs); those not required take their defaults",
      properties: Object.fromEntries(
        crew.requiredInputs.map((name): [string, JsonObject] => {
          const field = crew.inputFields?.[name];
          if (field === undefined) return [name, { type: 'string' }];
          return [name, field.type === undefined ? {} : { type: field.type }];
        }),
      ),
      required: crew.requiredInputs.filter((name) => crew.inputFields?.[name]?.required ?? true),
      additionalProperties: true,
    };
    kickoff.schema.properties = properties;
    kickoff.content.example = { inputs: exampleInputs, meta: { requestId: 'abc-123' } };
  }
  const resume = bodySchemaOf(paths['/resume']?.post);
  if (resume !== undefined) {
    resume.content.example = {
      execution_id: '<kickoff_id>',
      task_id: firstReviewed,
      human_feedback: 'Looks good',
      is_approve: true,
    };
  }
  const webhooks = Object.fromEntries(
    webhookPayloads.map(([name, summary, schema]) => [
      name,
      {
        post: {
          summary,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: z.toJSONSchema(schema, { target: 'draft-2020-12' }) } },
          },
          responses: { '2XX': { description: 'Received; any other answer is retried (410 stops retries)' } },
        },
      },
    ]),
  );
  return { ...document, tags, webhooks };
}

function bodySchemaOf(
  operation: JsonObject | undefined,
): { readonly content: JsonObject; readonly schema: JsonObject } | undefined {
  const content = (operation?.requestBody as { content?: Record<string, JsonObject> } | undefined)?.content?.[
    'application/json'
  ];
  const schema = content?.schema as JsonObject | undefined;
  return content === undefined || schema === undefined ? undefined : { content, schema };
}
