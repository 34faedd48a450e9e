import type { z } from 'zod';
import { compileCel, eachStepRoots, flowRoots } from './cel-expression.ts';
import type { CelRoot } from './cel-expression.ts';
import type { AtomicActionDefinition, FlowActionDefinition } from './flow-definition.ts';
import { ExpressionSyntaxError } from './flow-errors.ts';
import {
  agentActionSchema,
  codeActionSchema,
  crewActionSchema,
  eachActionSchema,
  expressionActionSchema,
  methodNamePattern,
  scriptActionSchema,
  toolActionSchema,
} from './flow-schema.ts';
import { compileTemplated } from './templated-value.ts';
import { unwrapExpression } from './template.ts';
import { pydanticMessage } from './pydantic-message.ts';

/** A problem in one action: crewAI's message and the key path it is at. */
export class ActionProblem extends Error {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
    this.name = 'ActionProblem';
  }
}

/** Actions that name Python code: crewd cannot run them natively. */
export const pythonCalls = ['code', 'tool', 'script'] as const;

/**
 * Checks a method's `do:` (at `where`, e.g. `methods.m.do`) and compiles its expressions and templates.
 * `roots` are the CEL roots allowed (inside `each` steps `item` too); `inEach` refuses a nested `each` and `if`.
 */
export function buildAction(
  value: unknown,
  where: string,
  roots: readonly CelRoot[] = flowRoots,
): FlowActionDefinition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ActionProblem('Input should be a valid dictionary or object to extract fields from', where);
  }
  const document = value as Record<string, unknown>;
  const call = document.call ?? 'code';
  if (call === 'each' && roots === flowRoots) return buildEach(document, where);
  if ('if' in document) {
    throw new ActionProblem(
      "Extra inputs are not permitted: 'if' (only each.do steps take an if)",
      `${where}.if`,
    );
  }
  return buildAtomic(document, call, where, roots);
}

function buildAtomic(
  document: Record<string, unknown>,
  call: unknown,
  where: string,
  roots: readonly CelRoot[],
): AtomicActionDefinition {
  try {
    switch (call) {
      case 'expression': {
        const action = parse(expressionActionSchema, document, where);
        return { call, expression: compileCel(unwrapExpression(action.expr), `${where}.expr`, roots) };
      }
      case 'agent': {
        const action = parse(agentActionSchema, document, where);
        if (typeof action.with.input !== 'string')
          throw new ActionProblem('agent.input must be a string', `${where}.with.input`);
        if (action.with.settings !== undefined && !isMapping(action.with.settings)) {
          throw new ActionProblem('agent.settings must be a mapping', `${where}.with.settings`);
        }
        return {
          call,
          agent: action.with,
          input: compileTemplated(action.with.input, `${where}.with.input`, roots),
        };
      }
      case 'crew':
        return buildCrew(parse(crewActionSchema, document, where), where, roots);
      case 'code':
      case 'tool': {
        const action = parse(call === 'code' ? codeActionSchema : toolActionSchema, document, where);
        const written = action.with;
        return {
          call,
          document,
          arguments: written === undefined ? undefined : compileTemplated(written, `${where}.with`, roots),
        };
      }
      case 'script':
        parse(scriptActionSchema, document, where);
        return { call, document, arguments: undefined };
      case 'each':
        throw new ActionProblem('each steps cannot contain a nested each action', `${where}.call`);
      default:
        throw new ActionProblem(
          `unknown action call ${JSON.stringify(call)}; expected one of code, tool, crew, agent, expression, script, each`,
          `${where}.call`,
        );
    }
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) throw new ActionProblem(error.message, where);
    throw error;
  }
}

function buildCrew(
  action: z.infer<typeof crewActionSchema>,
  where: string,
  roots: readonly CelRoot[],
): AtomicActionDefinition {
  if ((action.with === undefined) === (action.from_declaration === undefined)) {
    throw new ActionProblem('crew action requires exactly one of from_declaration or with', where);
  }
  if (action.inputs !== undefined && !isMapping(action.inputs)) {
    throw new ActionProblem('crew.inputs must be a mapping', `${where}.inputs`);
  }
  const inputs =
    action.inputs === undefined ? undefined : compileTemplated(action.inputs, `${where}.inputs`, roots);
  if (action.from_declaration !== undefined) {
    return {
      call: 'crew',
      source: { kind: 'declaration', path: action.from_declaration },
      defaultInputs: undefined,
      inputs,
    };
  }
  const crew = action.with ?? {};
  if (crew.inputs !== undefined && !isMapping(crew.inputs)) {
    throw new ActionProblem('crew.inputs must be a mapping', `${where}.with.inputs`);
  }
  checkInlineCrew(crew, `${where}.with`);
  return {
    call: 'crew',
    source: { kind: 'inline', crew },
    defaultInputs:
      crew.inputs === undefined ? undefined : compileTemplated(crew.inputs, `${where}.with.inputs`, roots),
    inputs,
  };
}

/** crewAI's checks of an inline crew's shape (crew_definition.py); the fields themselves are checked when it runs. */
function checkInlineCrew(crew: Record<string, unknown>, where: string): void {
  const agents = crew.agents;
  if (Array.isArray(agents)) {
    agents.forEach((agent, index) => {
      if (!isMapping(agent))
        throw new ActionProblem(`agents[${index}] must be an inline agent mapping`, `${where}.agents`);
      if ('name' in agent) {
        if (typeof agent.name !== 'string' || agent.name === '') {
          throw new ActionProblem(`agents[${index}].name must be a non-empty string`, `${where}.agents`);
        }
      } else if (Object.keys(agent).length !== 1 || !isMapping(Object.values(agent)[0])) {
        throw new ActionProblem(
          `agents[${index}] must include a name field or be a one-key mapping`,
          `${where}.agents`,
        );
      }
    });
  }
  const agentCount = Array.isArray(agents)
    ? agents.length
    : isMapping(agents)
      ? Object.keys(agents).length
      : 0;
  if (agentCount === 0)
    throw new ActionProblem('crew action requires inline agent definitions', `${where}.agents`);
  if (!Array.isArray(crew.tasks) || crew.tasks.length === 0) {
    throw new ActionProblem('crew action requires a non-empty tasks list', `${where}.tasks`);
  }
}

function buildEach(document: Record<string, unknown>, where: string): FlowActionDefinition {
  const action = parse(
    eachActionSchema.extend({ do: eachActionSchema.shape.do.optional() }),
    document,
    where,
  );
  const steps = action.do ?? [];
  if (steps.length === 0) throw new ActionProblem('each.do must contain at least one step', `${where}.do`);
  const seen = new Set<string>();
  const built = steps.map((step, index) => {
    const at = `${where}.do[${index}]`;
    if (!methodNamePattern.test(step.name)) {
      throw new ActionProblem(`each.do step names must match ${methodNamePattern.source}`, `${at}.name`);
    }
    if (seen.has(step.name))
      throw new ActionProblem(`each.do step names must be unique: '${step.name}'`, `${at}.name`);
    seen.add(step.name);
    let condition;
    try {
      condition =
        step.if === undefined ? undefined : compileCel(unwrapExpression(step.if), `${at}.if`, eachStepRoots);
    } catch (error) {
      if (error instanceof ExpressionSyntaxError) throw new ActionProblem(error.message, `${at}.if`);
      throw error;
    }
    return {
      name: step.name,
      condition,
      action: buildAtomic(step.action, step.action.call, `${at}.action`, eachStepRoots),
    };
  });
  let items;
  try {
    items = compileCel(unwrapExpression(action.in), `${where}.in`, flowRoots);
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) throw new ActionProblem(error.message, `${where}.in`);
    throw error;
  }
  return { call: 'each', items, steps: built };
}

/** Parses with `schema`, turning the first issue into an ActionProblem at its key, in pydantic's words. */
function parse<Schema extends z.ZodType>(schema: Schema, value: unknown, where: string): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const path = (issue?.path ?? []).map((segment) =>
    typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`,
  );
  const key = `${where}${path.join('')}`;
  throw new ActionProblem(pydanticMessage(issue), key);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
