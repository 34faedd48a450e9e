import { z } from 'zod';
import type { CrewDefinition, InputField } from '../../domain/crew.ts';
import { kickoffBodySchema, requestFieldLimits } from '../request-schemas.ts';
import { statusViewSchema } from '../response-schemas.ts';

/** How long the kickoff and resume tools wait for a pause or the end when `wait_seconds` is not given, and at most. */
export const mcpWaitSeconds = { default: 30, max: 300 } as const;

export const kib = (bytes: number): string => `${bytes / 1024} KiB`;

const waitSecondsSchema = (defaultSeconds: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(mcpWaitSeconds.max)
    .optional()
    .describe(
      `Seconds to wait for the execution to finish or pause for review (default ${defaultSeconds}, ` +
        `at most ${mcpWaitSeconds.max}; 0 answers at once). It keeps running after the wait either way.`,
    );

// The schemas below do not change with the crew, so they are built once: a zod object compiles its parser on first
// use, and building them for every request cost more than the rest of the server together.

export const statusToolInput = z.object({
  kickoff_id: z.string().min(1).describe('The id kickoff answered'),
  wait_seconds: waitSecondsSchema(0),
});

export const resumeToolInput = z.object({
  execution_id: z.string().min(1).describe('The kickoff_id of the paused execution'),
  task_id: z.string().min(1).describe('pending_human_input.task_id'),
  human_feedback: z
    .string()
    .refine(
      (text) => Buffer.byteLength(text) <= requestFieldLimits.feedbackBytes,
      `must be at most ${kib(requestFieldLimits.feedbackBytes)}`,
    )
    .describe('Added to the context of later tasks, or of the retried task; may be empty'),
  is_approve: z.boolean().describe('true continues; false runs the task again with the feedback'),
  wait_seconds: waitSecondsSchema(mcpWaitSeconds.default),
});

export const cancelToolInput = z.object({
  kickoff_id: z.string().min(1).describe('The id kickoff answered'),
});

export const resumeToolOutput = z.object({
  status: z.enum(['resumed', 'retrying', 'completed']),
  message: z.string(),
  execution: statusViewSchema.describe('The execution after the wait, as the status tool shows it'),
});

/**
 * The kickoff tool's arguments beside the crew's inputs: the wait, and what `POST /kickoff` takes beside `inputs`
 * (the same schemas, so the same checks), under the body's names.
 */
const kickoffExtras = {
  wait_seconds: waitSecondsSchema(mcpWaitSeconds.default),
  meta: kickoffBodySchema.shape.meta,
  taskWebhookUrl: kickoffBodySchema.shape.taskWebhookUrl.describe(
    "Receives each task's output as it finishes (the task webhook of POST /kickoff)",
  ),
  stepWebhookUrl: kickoffBodySchema.shape.stepWebhookUrl.describe(
    'Receives every agent step (the step webhook of POST /kickoff)',
  ),
  crewWebhookUrl: kickoffBodySchema.shape.crewWebhookUrl.describe(
    'Receives the end of the execution (the crew webhook of POST /kickoff)',
  ),
  humanInputWebhook: kickoffBodySchema.shape.humanInputWebhook,
  webhooks: kickoffBodySchema.shape.webhooks,
} as const;

export type KickoffExtra = keyof typeof kickoffExtras;

/** The kickoff tool's arguments for one crew version: its inputs, and the extras no crew input takes the name of. */
export interface KickoffToolInput {
  readonly schema: z.ZodObject;
  /** The crew's inputs, as `GET /inputs` lists them. */
  readonly inputNames: readonly string[];
  /** The extras offered: a crew input of the same name wins, and the extra takes its default (none, or the wait's). */
  readonly extras: ReadonlySet<KickoffExtra>;
}

/**
 * A crew's placeholder: listed as a required string; one missing (or not a string) reaches the tool as undefined,
 * so it answers the contract's "Missing required inputs" with their names, as POST /kickoff does, rather than a
 * parser's text.
 */
function placeholderInput(name: string): z.ZodType {
  return z
    .string()
    .catch(undefined as unknown as string)
    .describe(`Replaces {${name}} in the crew's agents and tasks`);
}

/**
 * A field of a flow's state, typed as its schema types it (any JSON value where it names no type) and optional
 * where a default fills it; a value of another type is refused by the tool's schema, naming the field.
 */
function typedInput(name: string, field: InputField): z.ZodType {
  const base =
    field.type === 'string'
      ? z.string()
      : field.type === 'number'
        ? z.number()
        : field.type === 'integer'
          ? z.number().int()
          : field.type === 'boolean'
            ? z.boolean()
            : field.type === 'object'
              ? z.record(z.string(), z.unknown())
              : field.type === 'array'
                ? z.array(z.unknown())
                : z.unknown();
  const described = base.describe(field.description ?? `The flow state's field ${name}`);
  return field.required ? described : described.optional();
}

/** The kickoff tool's input schema for a crew version. */
export function kickoffToolInput(crew: CrewDefinition): KickoffToolInput {
  const inputNames = crew.requiredInputs;
  const inputShape: Record<string, z.ZodType> = {};
  for (const name of inputNames) {
    const field = crew.inputFields?.[name];
    inputShape[name] = field === undefined ? placeholderInput(name) : typedInput(name, field);
  }
  const extraShape: Record<string, z.ZodType> = {};
  const extras = new Set<KickoffExtra>();
  for (const [name, schema] of Object.entries(kickoffExtras) as [KickoffExtra, z.ZodType][]) {
    if (inputNames.includes(name)) continue;
    extraShape[name] = schema;
    extras.add(name);
  }
  // The wait first, the crew's inputs next, then the rest: the order clients show them in.
  const { wait_seconds: wait, ...rest } = extraShape;
  const schema = z.object({ ...(wait === undefined ? {} : { wait_seconds: wait }), ...inputShape, ...rest });
  return { schema, inputNames, extras };
}
