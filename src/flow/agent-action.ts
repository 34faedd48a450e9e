import type { CrewDefinition } from '../domain/crew.ts';
import { addUsage } from '../domain/usage.ts';
import { runCrew } from '../engine/crew-process.ts';
import { agentSchema } from '../crew/agent-schema.ts';
import { assembleCrew } from '../crew/load-crew.ts';
import { taskSchema } from '../crew/task-schema.ts';
import type { JsonValue } from './cel-values.ts';
import type { AgentActionDefinition } from './flow-definition.ts';
import { FlowMethodError } from './flow-errors.ts';
import type { ActionContext } from './flow-action-context.ts';
import { actionCheckpoint, spentBefore } from './action-checkpoint.ts';
import { modelCallHooks } from './model-call-hooks.ts';
import { crewOutputOf, validatedEntry } from './crew-output.ts';
import { renderTemplated } from './templated-value.ts';
import { withRegistryToolNames } from './flow-tool-reference.ts';

/** Stands in for the expected output while the task is checked; the task runs without one (see below). */
const checkedExpectedOutput = 'the answer';

/**
 * Runs an agent action as crewAI's `Agent.kickoff`: the agent answers its rendered `input` (which must be text)
 * with crewd's agent loop, as a one-task crew whose task is the input alone. `outputs.m` is crewAI's agent output shape: `{raw, pydantic, agent_role, usage_metrics, …}`.
 */
export async function runAgentAction(
  action: AgentActionDefinition,
  context: ActionContext,
): Promise<JsonValue> {
  const input = renderTemplated(action.input, context.data);
  if (typeof input !== 'string')
    throw new FlowMethodError(context.method, 'agent input must render to a string');
  const { input: _input, settings, ...fields } = action.agent;
  void _input;
  const entry = withRegistryToolNames({
    ...fields,
    ...(typeof settings === 'object' && settings !== null ? settings : {}),
  });
  const agent = validatedEntry(agentSchema, entry, `methods.${context.method}.do.with`, context.method);
  const crew: CrewDefinition = assembleCrew(context.method, {
    config: {},
    agents: new Map([['agent', agent]]),
    tasks: new Map([
      [
        'answer',
        validatedEntry(
          taskSchema,
          { description: input, expected_output: checkedExpectedOutput, agent: 'agent', context: [] },
          'task',
          context.method,
        ),
      ],
    ]),
    toolOrigins: {},
    root: context.sourceDir ?? process.cwd(),
  });
  // crewAI's Agent.kickoff sends the persona as the system message and the input as the current task, with no
  // expected output: the one task carries none, so the model is asked only what the flow asks.
  const kickoff: CrewDefinition = {
    ...crew,
    tasks: crew.tasks.map((task) => ({ ...task, expectedOutput: '' })),
    requiredInputs: [],
  };
  const run = context.nextRun();
  const checkpoint = actionCheckpoint(context, kickoff, run);
  const outcome = await runCrew({
    executionId: context.dependencies.executionId,
    crew: kickoff,
    inputs: {},
    checkpoint,
    models: context.dependencies.models,
    tools: context.dependencies.tools,
    defaultModel: context.dependencies.defaultModel,
    signal: context.signal,
    onEvent: (event) => context.dependencies.onEngineEvent?.(run, event),
    ...modelCallHooks(context),
    ...(context.dependencies.clock === undefined ? {} : { clock: context.dependencies.clock }),
  });
  if (outcome.kind !== 'completed')
    throw new FlowMethodError(
      context.method,
      'the agent asked for human input, which an agent action cannot take',
    );
  const crewOutput = crewOutputOf(outcome.outputs, addUsage(spentBefore(checkpoint), outcome.usage));
  return {
    raw: crewOutput.raw,
    pydantic: null,
    agent_role: agent.role,
    usage_metrics: crewOutput.token_usage,
    messages: [],
    tool_failures: [],
  };
}
