import type { JsonValue } from './cel-values.ts';
import { coerceToSchema, fitObject, UnsupportedSchemaError } from './coerce-json-schema.ts';
import type { StateFieldProblem } from './coerce-json-schema.ts';
import type { FlowDefinition } from './flow-definition.ts';
import { CrewdError } from '../domain/errors.ts';
import type { InputField } from '../domain/crew.ts';

/** A flow's state: a JSON object that always has an `id`. */
export type FlowState = Readonly<Record<string, JsonValue>> & { readonly id: string };

/** How a flow's state is shaped: a free mapping, or the fields of a JSON Schema. */
export type StateModel =
  | { readonly kind: 'dict'; readonly defaults: Readonly<Record<string, unknown>> }
  | {
      readonly kind: 'schema';
      readonly schema: Readonly<Record<string, unknown>>;
      readonly defaults: Readonly<Record<string, unknown>>;
    };

/** Kickoff inputs that do not fit the state: what the HTTP layer answers 422 with. */
export class FlowInputsError extends CrewdError {
  constructor(readonly problems: readonly StateFieldProblem[]) {
    super(
      'VALIDATION_ERROR',
      `Invalid inputs for structured state: ${problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}`,
      {
        details: { invalid_inputs: problems.map((problem) => ({ ...problem })) },
      },
    );
    this.name = 'FlowInputsError';
  }
}

/**
 * The state model crewAI builds from `state:`. A `json_schema` it cannot build a model from (a `type` given as a
 * list) falls back to dict state, as crewAI does, with the reason through `warn`.
 */
export function stateModel(
  definition: FlowDefinition,
  warn: (message: string) => void = () => {},
): StateModel {
  const state = definition.state;
  const defaults = state?.default ?? {};
  const schema = state?.type === 'json_schema' || state?.type === 'pydantic' ? state.json_schema : undefined;
  if (schema == null) return { kind: 'dict', defaults };
  try {
    coerceToSchema(schema, {}, schema);
    probeTypes(schema);
  } catch (error) {
    if (!(error instanceof UnsupportedSchemaError)) throw error;
    warn(
      `${definition.file} (state.json_schema): Could not build a state model from the declared json_schema: ${error.message}; using dict state`,
    );
    return { kind: 'dict', defaults };
  }
  return { kind: 'schema', schema, defaults };
}

/** Walks the schema for list-valued `type`s, which crewAI's model builder refuses. */
function probeTypes(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(probeTypes);
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray((schema as Record<string, unknown>).type)) {
    throw new UnsupportedSchemaError(
      `Unsupported JSON schema type: ${JSON.stringify((schema as Record<string, unknown>).type)}`,
    );
  }
  Object.values(schema).forEach(probeTypes);
}

/**
 * A fresh state: the defaults (a copy) plus `id` (a new one unless the defaults set it). Required schema fields may
 * still be missing: kickoff inputs can bring them, as in crewAI.
 */
export function initialState(model: StateModel, newId: () => string): FlowState {
  const copy = structuredClone(model.defaults) as Record<string, JsonValue>;
  const id = typeof copy.id === 'string' ? copy.id : newId();
  if (model.kind === 'dict') return { ...copy, id };
  const problems: StateFieldProblem[] = [];
  const fitted = fitObject(model.schema, copy, model.schema, '', problems, {
    allowMissing: true,
    extra: ['id'],
  });
  if (problems.length > 0) throw new FlowInputsError(problems);
  return { ...(fitted as Record<string, JsonValue>), id };
}

/**
 * Merges kickoff inputs into state as crewAI does: dict state takes each key as it is; schema state is validated
 * whole (lax coercions, unknown keys refused). An `id` input names the state's id and is not a field.
 */
export function applyInputs(
  model: StateModel,
  state: FlowState,
  inputs: Readonly<Record<string, unknown>>,
): FlowState {
  const { id: requestedId, ...fields } = inputs;
  const id = typeof requestedId === 'string' && requestedId !== '' ? requestedId : state.id;
  if (model.kind === 'dict') return { ...state, ...(fields as Record<string, JsonValue>), id };
  const problems: StateFieldProblem[] = [];
  const fitted = fitObject(model.schema, { ...state, ...fields }, model.schema, '', problems, {
    extra: ['id'],
  });
  if (problems.length > 0) throw new FlowInputsError(problems);
  return { ...(fitted as Record<string, JsonValue>), id };
}

/**
 * The flow's inputs, as crewAI's CLI derives them: the state schema's fields but `id`, in schema order. Dict state
 * has no schema; its default keys are listed (any key is accepted).
 */
export function flowInputs(definition: FlowDefinition): string[] {
  const model = stateModel(definition);
  const names =
    model.kind === 'schema' ? Object.keys(model.schema.properties ?? {}) : Object.keys(model.defaults);
  return names.filter((name) => name !== 'id');
}

/** What a kickoff's inputs lack or bring too many of, for a 422 before the flow starts. */
export interface FlowInputsCheck {
  /** Required fields satisfied neither by a default nor by the inputs. */
  readonly missing: readonly string[];
  /** Keys the state schema does not declare. */
  readonly unknown: readonly string[];
  /** Fields whose values do not fit their type. */
  readonly invalid: readonly StateFieldProblem[];
}

/**
 * Checks kickoff inputs against the flow's state without running anything. Dict state accepts any inputs. As in
 * crewAI's CLI, inputs naming an `id` (a run to continue) are not checked for missing fields, nor are those of a
 * kickoff that forks a saved state (`forking`): the state restored may hold them.
 */
export function checkFlowInputs(
  definition: FlowDefinition,
  inputs: Readonly<Record<string, unknown>>,
  forking = false,
): FlowInputsCheck {
  const model = stateModel(definition);
  if (model.kind === 'dict') return { missing: [], unknown: [], invalid: [] };
  const properties = (model.schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const unknown = Object.keys(inputs).filter((key) => key !== 'id' && !(key in properties));
  const known = Object.fromEntries(Object.entries(inputs).filter(([key]) => key in properties));
  const problems: StateFieldProblem[] = [];
  fitObject(model.schema, { ...model.defaults, ...known }, model.schema, '', problems, { extra: ['id'] });
  const missing =
    'id' in inputs || forking
      ? []
      : problems.filter((problem) => problem.message === 'Field required').map((problem) => problem.field);
  const invalid = problems.filter(
    (problem) => problem.message !== 'Field required' && problem.message !== 'Extra inputs are not permitted',
  );
  return { missing, unknown, invalid };
}

/**
 * What each kickoff input of the flow takes: for a schema state, its field's JSON type and whether it is required;
 * for any state, the default the state starts with (`state.default`, else the schema's `default`).
 */
export function flowInputFields(definition: FlowDefinition): Record<string, InputField> {
  const model = stateModel(definition);
  const names = flowInputs(definition);
  const defaultOf = (
    name: string,
    property: Readonly<Record<string, unknown>> = {},
  ): { default?: unknown } =>
    name in model.defaults
      ? { default: model.defaults[name] }
      : 'default' in property
        ? { default: property.default }
        : {};
  if (model.kind === 'dict') {
    return Object.fromEntries(
      names.map((name) => [name, { type: undefined, required: false, ...defaultOf(name) }]),
    );
  }
  const properties = (model.schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  // The fields a kickoff without inputs leaves missing are the required ones, as checkFlowInputs finds them.
  const missing = new Set(checkFlowInputs(definition, {}).missing);
  return Object.fromEntries(
    names.map((name) => {
      const property = properties[name] ?? {};
      const field: InputField = {
        type: jsonType(property.type),
        required: missing.has(name),
        ...(typeof property.description === 'string' ? { description: property.description } : {}),
        ...defaultOf(name, property),
      };
      return [name, field];
    }),
  );
}

const jsonTypes = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

function jsonType(type: unknown): InputField['type'] {
  return typeof type === 'string' && jsonTypes.has(type) ? (type as InputField['type']) : undefined;
}
