import { ActionProblem, buildAction } from './build-action.ts';
import type { FlowDefinition, FlowMethodDefinition, HumanFeedbackDefinition } from './flow-definition.ts';
import { FlowDefinitionError } from './flow-errors.ts';
import { configSchema, flowDocumentSchema, methodNamePattern, methodSchema } from './flow-schema.ts';
import type { FlowCondition, FlowMethodDocument } from './flow-schema.ts';
import type { FlowSource } from './read-flow-source.ts';
import { pydanticMessage } from './pydantic-message.ts';
import { refusePythonActions, refusePythonParts } from './refuse-python-parts.ts';

export type Warn = (message: string) => void;

export interface BuildFlowOptions {
  /** Receives one line per part of the document crewAI ignores or crewd does not honour. */
  readonly warn: Warn;
  /**
   * Whether the flow's Python parts are accepted (`code`, `tool` and `script` actions, a Pydantic state class): only
   * when the runner has the project's Python for them (openFlowRuntime). Refused at load otherwise, naming the method.
   */
  readonly acceptPythonActions?: boolean;
}

/** Keys each level of the document knows; any other is ignored by crewAI and reported by crewd. */
const knownKeys = {
  top: Object.keys(flowDocumentSchema.shape),
  method: Object.keys(methodSchema.shape),
  config: Object.keys(configSchema.shape),
};

/**
 * Checks a parsed flow document as crewAI's models do, with crewAI's messages, and compiles its expressions.
 * What crewAI ignores is reported through `warn`; Python parts are refused (see refuse-python-parts.ts).
 */
export function buildFlow(source: Omit<FlowSource, 'keys'>, options: BuildFlowOptions): FlowDefinition {
  const { file, data } = source;
  const { warn } = options;
  const parsed = flowDocumentSchema.safeParse(data);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const key = (issue?.path ?? []).map(String).join('.');
    const message =
      key.startsWith('state') && issue?.code === 'invalid_union'
        ? stateTagMessage(data.state)
        : pydanticMessage(issue);
    throw new FlowDefinitionError(file, message, key, parsed.error);
  }
  const document = parsed.data;
  const unhonoured: string[] = [];
  for (const key of Object.keys(data)) {
    if (!knownKeys.top.includes(key)) warn(`${file} (${key}): crewAI ignores this key, and so does crewd`);
  }
  for (const key of Object.keys(document.config)) {
    if (!knownKeys.config.includes(key))
      warn(`${file} (config.${key}): crewAI ignores this key, and so does crewd`);
  }
  refusePythonParts(document, file, unhonoured, options.acceptPythonActions === true);

  const methods = new Map<string, FlowMethodDefinition>();
  for (const [name, method] of Object.entries(document.methods)) {
    const where = `methods.${name}`;
    if (!methodNamePattern.test(name)) {
      throw new FlowDefinitionError(file, `Flow method names must match ${methodNamePattern.source}`, where);
    }
    const written = (data.methods as Record<string, unknown>)[name];
    for (const key of typeof written === 'object' && written !== null ? Object.keys(written) : []) {
      if (!knownKeys.method.includes(key))
        warn(`${file} (${where}.${key}): crewAI ignores this key, and so does crewd`);
    }
    if (method.do === undefined) throw new FlowDefinitionError(file, 'Field required', `${where}.do`);
    checkSelfListen(file, name, method.listen ?? undefined);
    for (const [key, condition] of [
      ['listen', method.listen],
      ['start', method.start],
    ] as const) {
      if (typeof condition === 'object' && condition !== null && !hasBranches(condition)) {
        warn(
          `${file} (${where}.${key}): a condition needs an or or an and; crewAI fails when it checks this one, and crewd never fires it`,
        );
      }
    }
    let action;
    try {
      action = buildAction(method.do, `${where}.do`);
    } catch (error) {
      if (error instanceof ActionProblem)
        throw new FlowDefinitionError(file, error.message, error.key, error);
      throw error;
    }
    refusePythonActions(file, name, action, { available: options.acceptPythonActions === true });
    const humanFeedback = toHumanFeedback(method, `${file} (${where}.human_feedback)`, warn);
    // crewAI: a human_feedback with outcomes makes the method a router on them, whatever else was written.
    const feedbackRoutes = humanFeedback?.emit !== undefined && humanFeedback.emit.length > 0;
    if (!feedbackRoutes && !method.router && method.emit != null) {
      warn(`${file} (${where}.emit): emit is set on a method with router: false [emit_without_router]`);
    }
    const start = method.start === true ? true : isCondition(method.start) ? method.start : undefined;
    methods.set(name, {
      name,
      action,
      start,
      listen: start === undefined ? (method.listen ?? undefined) : undefined,
      router: feedbackRoutes || method.router,
      emit: feedbackRoutes ? undefined : (method.emit ?? undefined),
      humanFeedback,
    });
    if (start !== undefined && method.listen != null) {
      warn(`${file} (${where}.listen): a start method's listen is ignored, as in crewAI`);
    }
    if (method.start === undefined && method.listen == null) {
      warn(`${file} (${where}): has neither start nor listen, so it never runs`);
    }
  }
  return {
    name: document.name,
    description: document.description ?? undefined,
    file,
    sourceDir: source.sourceDir,
    state: document.state ?? undefined,
    maxMethodCalls: document.config.max_method_calls,
    persist: document.persist?.enabled === true,
    methods,
    unhonoured,
  };
}

/** `start: false`, `null` and `""` are not starts (crewAI's `bool(start)`); `"true"` quoted is a condition. */
function isCondition(value: unknown): value is FlowCondition {
  return (typeof value === 'string' && value !== '') || (typeof value === 'object' && value !== null);
}

function checkSelfListen(file: string, name: string, listen: FlowCondition | undefined): void {
  if (listen === undefined || !mentions(listen, name)) return;
  throw new FlowDefinitionError(
    file,
    `methods.${name}.listen listen condition ${pythonRepr(listen)} references the handler name '${name}'. ` +
      'A listener triggered by its own completion creates an infinite loop. Listen to a different method or event, or rename the handler.',
    `methods.${name}.listen`,
  );
}

function mentions(condition: FlowCondition, name: string): boolean {
  if (typeof condition === 'string') return condition === name;
  return [...(condition.or ?? []), ...(condition.and ?? [])].some((branch) => mentions(branch, name));
}

function pythonRepr(condition: FlowCondition): string {
  if (typeof condition === 'string') return `'${condition}'`;
  const entries = Object.entries(condition).map(
    ([key, branches]) => `'${key}': [${branches.map(pythonRepr).join(', ')}]`,
  );
  return `{${entries.join(', ')}}`;
}

/** crewAI logs these as definition issues and goes on; crewd reports them the same way. */
function toHumanFeedback(
  method: FlowMethodDocument,
  where: string,
  warn: Warn,
): HumanFeedbackDefinition | undefined {
  const feedback = method.human_feedback;
  if (feedback == null) return undefined;
  const emit = feedback.emit == null || feedback.emit.length === 0 ? undefined : feedback.emit;
  if (emit !== undefined && feedback.llm == null)
    warn(`${where}: emit needs an llm to classify feedback [human_feedback_llm_required]`);
  if (feedback.default_outcome != null && emit === undefined) {
    warn(`${where}: default_outcome is set without emit [human_feedback_default_requires_emit]`);
  }
  if (feedback.default_outcome != null && emit !== undefined && !emit.includes(feedback.default_outcome)) {
    warn(
      `${where}: default_outcome '${feedback.default_outcome}' is not one of emit [human_feedback_default_not_in_emit]`,
    );
  }
  if (feedback.learn === true)
    warn(`${where} (learn): crewd does not distil lessons from feedback yet; ignored`);
  return {
    message: feedback.message,
    emit,
    llm: feedback.llm,
    defaultOutcome: feedback.default_outcome ?? undefined,
    metadata: feedback.metadata ?? {},
  };
}

/** pydantic's words for a `state` whose `type` is missing or not one of the four. */
function stateTagMessage(state: unknown): string {
  const type =
    typeof state === 'object' && state !== null ? (state as Record<string, unknown>).type : undefined;
  if (type === undefined) return "Unable to extract tag using discriminator 'type'";
  return `Input tag '${JSON.stringify(type)}' found using 'type' does not match any of the expected tags: 'dict', 'json_schema', 'pydantic', 'unknown'`;
}

/** Whether every mapping in a condition has an `or` or an `and` (crewAI reads nothing else). */
function hasBranches(condition: FlowCondition): boolean {
  if (typeof condition === 'string') return true;
  const branches = condition.and ?? condition.or;
  return branches !== undefined && branches.every(hasBranches);
}
