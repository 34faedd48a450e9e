import type { FlowActionDefinition } from './flow-definition.ts';
import { FlowDefinitionError } from './flow-errors.ts';
import type { FlowDocument } from './flow-schema.ts';

/**
 * Refuses the parts of a flow that need Python or crewAI's hosted platform, and lists in `unhonoured` the settings
 * crewd reads but does not act on. Without Python (`pythonAvailable` false), `state.type: pydantic` with a
 * `json_schema` uses the schema, as crewAI falls back to it when the class cannot be imported; with Python the
 * runner imports the class (openFlowRuntime).
 */
export function refusePythonParts(
  document: FlowDocument,
  file: string,
  unhonoured: string[],
  pythonAvailable = false,
): void {
  const state = document.state;
  if (state?.type === 'pydantic' && !pythonAvailable) {
    if (state.json_schema == null) {
      throw new FlowDefinitionError(
        file,
        'state of type pydantic names a Python class, which crewd cannot import; declare type: json_schema with the fields instead',
        'state.type',
      );
    }
    unhonoured.push(`state.ref: the Python class is not imported; the state follows state.json_schema`);
  }
  if (state?.type === 'unknown')
    unhonoured.push('state.type unknown: falls back to dict state, as in crewAI');
  if (document.conversational !== undefined) {
    throw new FlowDefinitionError(
      file,
      'conversational flows are not supported by crewd yet',
      'conversational',
    );
  }
  if (document.config.input_provider != null) {
    throw new FlowDefinitionError(
      file,
      'config.input_provider names a Python class, which crewd cannot import',
      'config.input_provider',
    );
  }
  for (const key of ['tracing', 'memory', 'checkpoint'] as const) {
    if (document.config[key] != null)
      unhonoured.push(`config.${key}: not acted on (crewd keeps every run durable itself)`);
  }
  for (const key of ['stream', 'suppress_flow_events', 'defer_trace_finalization'] as const) {
    if (document.config[key]) unhonoured.push(`config.${key}: not acted on yet`);
  }
  if (document.persist?.persistence != null)
    unhonoured.push('persist.persistence: not acted on: crewd keeps flow states in its own store');
  for (const [name, method] of Object.entries(document.methods)) {
    const feedback = method.human_feedback;
    if (feedback?.provider != null) {
      throw new FlowDefinitionError(
        file,
        `human_feedback.provider names a Python class, which crewd cannot import`,
        `methods.${name}.human_feedback.provider`,
      );
    }
    if (method.persist != null)
      unhonoured.push(`methods.${name}.persist: not needed: crewd records every completed method`);
  }
}

/**
 * Refuses what no runner can give a method: an agent `from_repository`, a `{python: ...}` object in an agent or
 * crew. A `code`, `tool` or `script` action (directly or as an `each` step) is refused, naming the method, unless
 * `python` says the project's Python runs it; `python.reason` says why it cannot when it cannot.
 */
export function refusePythonActions(
  file: string,
  method: string,
  action: FlowActionDefinition,
  python: { readonly available: boolean; readonly reason?: string } = { available: false },
): void {
  const actions = action.call === 'each' ? action.steps.map((step) => step.action) : [action];
  for (const atomic of actions) {
    const written =
      atomic.call === 'agent'
        ? atomic.agent
        : atomic.call === 'crew' && atomic.source.kind === 'inline'
          ? atomic.source.crew
          : undefined;
    const where = `methods.${method}.do`;
    if (atomic.call === 'agent' && atomic.agent.from_repository !== undefined) {
      throw new FlowDefinitionError(
        file,
        `method '${method}' fetches its agent from_repository, crewAI's hosted agent repository, which crewd cannot reach`,
        `${where}.with.from_repository`,
      );
    }
    const reference = written === undefined ? undefined : pythonReference(written, 'with');
    if (reference !== undefined) {
      throw new FlowDefinitionError(
        file,
        `method '${method}' names a Python object ({python: ...}), which crewd cannot import`,
        `${where}.${reference}`,
      );
    }
  }
  const call = actions
    .map((atomic) => atomic.call)
    .find((call) => call === 'code' || call === 'tool' || call === 'script');
  if (call === undefined || python.available) return;
  throw new FlowDefinitionError(
    file,
    `method '${method}' uses call: ${call}, which runs in the project's Python, and no Python is available` +
      (python.reason === undefined ? '' : ` (${python.reason})`),
    `methods.${method}.do`,
  );
}

/** The key path of the first `{python: "..."}` reference inside `value`, if any. */
function pythonReference(value: unknown, path: string): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = pythonReference(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if ('python' in value) return path;
  for (const [key, item] of Object.entries(value)) {
    const found = pythonReference(item, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}
