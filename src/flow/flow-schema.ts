import { z } from 'zod';

/** crewAI's rule for method and `each` step names (flow_definition.py). */
export const methodNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A trigger condition: a method or router-event name, or an `or`/`and` of conditions. Not CEL. */
export type FlowCondition = string | { readonly or?: FlowCondition[]; readonly and?: FlowCondition[] };

export const conditionSchema: z.ZodType<FlowCondition> = z.lazy(() =>
  z.union([
    z.string(),
    z.looseObject({ or: z.array(conditionSchema).optional(), and: z.array(conditionSchema).optional() }),
  ]),
);

/** A model as crewAI's declarations name it: `provider/model`, or `{model, ...settings}`. */
const llmSchema = z.union([z.string(), z.looseObject({ model: z.string() })]);

export const expressionActionSchema = z.strictObject({
  call: z.literal('expression'),
  expr: z.string(),
});

/** `with:` of an agent action: the agent's own keys plus `input`, the only templated field. */
export const agentWithSchema = z.looseObject({
  role: z.string().optional(),
  goal: z.string().optional(),
  backstory: z.string().optional(),
  input: z.unknown(),
  llm: llmSchema.optional(),
  settings: z.unknown().optional(),
  tools: z.array(z.unknown()).optional(),
  from_repository: z.string().optional(),
});

export const agentActionSchema = z.strictObject({
  call: z.literal('agent'),
  with: agentWithSchema,
});

export const crewActionSchema = z.strictObject({
  call: z.literal('crew'),
  with: z.looseObject({ inputs: z.unknown().optional() }).optional(),
  from_declaration: z.string().optional(),
  inputs: z.unknown().optional(),
});

/** Python-backed actions: validated for shape so their messages match crewAI's, then refused (or handed on). */
export const codeActionSchema = z.strictObject({
  call: z.literal('code').default('code'),
  ref: z.string(),
  with: z.record(z.string(), z.unknown()).optional(),
});
export const toolActionSchema = z.strictObject({
  call: z.literal('tool'),
  ref: z.string(),
  with: z.record(z.string(), z.unknown()).optional(),
});
export const scriptActionSchema = z.strictObject({
  call: z.literal('script'),
  code: z.string(),
  language: z.literal('python').default('python'),
});

export const atomicActionSchema = z.discriminatedUnion('call', [
  expressionActionSchema,
  agentActionSchema,
  crewActionSchema,
  codeActionSchema.extend({ call: z.literal('code') }),
  toolActionSchema,
  scriptActionSchema,
]);

export const eachStepSchema = z.strictObject({
  name: z.string(),
  if: z.string().optional(),
  // Checked by the action's own schema once `call` is known, so a nested `each` gets its own message.
  action: z.looseObject({ call: z.string() }),
});

export const eachActionSchema = z.strictObject({
  call: z.literal('each'),
  in: z.string(),
  do: z.array(eachStepSchema),
});

export const humanFeedbackSchema = z.looseObject({
  message: z.string(),
  emit: z.array(z.string()).nullish(),
  llm: llmSchema.nullish().default('gpt-4o-mini'),
  default_outcome: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  provider: z.string().nullish(),
  learn: z.boolean().nullish(),
});

export const persistSchema = z.looseObject({
  enabled: z.boolean().default(true),
  verbose: z.boolean().default(false),
  persistence: z.unknown().optional(),
});

export const methodSchema = z.looseObject({
  description: z.string().nullish(),
  do: z.unknown(),
  start: z.union([z.boolean(), z.string(), conditionSchema]).nullish(),
  listen: conditionSchema.nullish(),
  router: z.boolean().default(false),
  emit: z.array(z.string()).nullish(),
  human_feedback: humanFeedbackSchema.nullish(),
  persist: persistSchema.nullish(),
});

export const stateSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('dict'), default: z.record(z.string(), z.unknown()).nullish() }),
  z.strictObject({
    type: z.literal('json_schema'),
    json_schema: z.record(z.string(), z.unknown()),
    default: z.record(z.string(), z.unknown()).nullish(),
  }),
  z.strictObject({
    type: z.literal('pydantic'),
    ref: z.string().nullish(),
    json_schema: z.record(z.string(), z.unknown()).nullish(),
    default: z.record(z.string(), z.unknown()).nullish(),
  }),
  z.strictObject({
    type: z.literal('unknown'),
    ref: z.string().nullish(),
    default: z.record(z.string(), z.unknown()).nullish(),
  }),
]);

export const configSchema = z.looseObject({
  tracing: z.unknown().optional(),
  stream: z.boolean().default(false),
  memory: z.unknown().optional(),
  input_provider: z.string().nullish(),
  suppress_flow_events: z.boolean().default(false),
  max_method_calls: z.number().int().positive().default(100),
  defer_trace_finalization: z.boolean().default(false),
  checkpoint: z.unknown().optional(),
});

/** A `crewai.flow/v1` document as crewAI's models accept it; actions are checked one by one afterwards. */
export const flowDocumentSchema = z.looseObject({
  schema: z.literal('crewai.flow/v1').default('crewai.flow/v1'),
  name: z.string(),
  description: z.string().nullish(),
  state: stateSchema.nullish(),
  config: configSchema.default(configSchema.parse({})),
  persist: persistSchema.nullish(),
  conversational: z.unknown().optional(),
  methods: z.record(z.string(), methodSchema).default({}),
});

export type FlowDocument = z.infer<typeof flowDocumentSchema>;
export type FlowMethodDocument = z.infer<typeof methodSchema>;
export type FlowStateDocument = z.infer<typeof stateSchema>;
export type ExpressionAction = z.infer<typeof expressionActionSchema>;
export type AgentAction = z.infer<typeof agentActionSchema>;
export type CrewAction = z.infer<typeof crewActionSchema>;
export type EachAction = z.infer<typeof eachActionSchema>;
export type AtomicAction = z.infer<typeof atomicActionSchema>;
export type HumanFeedbackDocument = z.infer<typeof humanFeedbackSchema>;
