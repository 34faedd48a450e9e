import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CrewDefinition } from '../domain/crew.ts';
import { addUsage } from '../domain/usage.ts';
import { runCrew } from '../engine/crew-process.ts';
import { agentSchema } from '../crew/agent-schema.ts';
import type { AgentEntry } from '../crew/agent-schema.ts';
import { checkInputs } from '../crew/placeholders.ts';
import { readJsoncFile } from '../crew/jsonc-file.ts';
import { findJsoncCrew, loadJsoncCrew } from '../crew/load-jsonc-crew.ts';
import { assembleCrew } from '../crew/load-crew.ts';
import { taskSchema } from '../crew/task-schema.ts';
import type { TaskEntry } from '../crew/task-schema.ts';
import { crewConfigSchema } from '../crew/crew-config-schema.ts';
import type { JsonValue } from './cel-values.ts';
import type { CrewActionDefinition } from './flow-definition.ts';
import { FlowMethodError } from './flow-errors.ts';
import type { ActionContext } from './flow-action-context.ts';
import { actionCheckpoint, spentBefore } from './action-checkpoint.ts';
import { modelCallHooks } from './model-call-hooks.ts';
import { crewOutputOf, validatedEntry } from './crew-output.ts';
import { renderTemplated } from './templated-value.ts';
import { flowToolName, withRegistryToolNames } from './flow-tool-reference.ts';

/**
 * Runs a crew action with crewd's crew process. Inputs are crewAI's: the crew's defaults (`with.inputs`, or the
 * crew file's `inputs`) with the action's `inputs` over them, the whole map rendered as templates. Flow state
 * reaches the crew only through these inputs.
 */
export async function runCrewAction(
  action: CrewActionDefinition,
  context: ActionContext,
): Promise<JsonValue> {
  const { crew, defaults } =
    action.source.kind === 'inline'
      ? {
          crew: inlineCrew(action.source.crew, context),
          defaults:
            action.defaultInputs === undefined ? {} : renderTemplated(action.defaultInputs, context.data),
        }
      : await declaredCrew(action.source.path, context);
  const own = action.inputs === undefined ? {} : renderTemplated(action.inputs, context.data);
  const inputs = { ...(defaults as Record<string, unknown>), ...(own as Record<string, unknown>) };
  try {
    checkInputs(crew, inputs);
  } catch (error) {
    throw new FlowMethodError(
      context.method,
      `the crew misses inputs: ${(error as { missingInputs?: string[] }).missingInputs?.join(', ') ?? ''}`,
      error,
    );
  }
  const run = context.nextRun();
  const checkpoint = actionCheckpoint(context, crew, run);
  const outcome = await runCrew({
    executionId: context.dependencies.executionId,
    crew,
    inputs,
    checkpoint,
    models: context.dependencies.models,
    tools: context.dependencies.tools,
    defaultModel: context.dependencies.defaultModel,
    signal: context.signal,
    onEvent: (event) => context.dependencies.onEngineEvent?.(run, event),
    ...modelCallHooks(context),
    ...(context.dependencies.clock === undefined ? {} : { clock: context.dependencies.clock }),
  });
  if (outcome.kind !== 'completed') {
    throw new FlowMethodError(
      context.method,
      'a task of the crew asked for human input; use human_feedback on the flow method instead',
    );
  }
  return crewOutputOf(outcome.outputs, addUsage(spentBefore(checkpoint), outcome.usage));
}

/** An inline crew: agents as a map, a list of `{name, …}` or a list of one-key maps; tasks in order. */
function inlineCrew(written: Readonly<Record<string, unknown>>, context: ActionContext): CrewDefinition {
  const where = `methods.${context.method}.do.with`;
  const { agents: writtenAgents, tasks: writtenTasks, inputs: _inputs, ...config } = written;
  void _inputs;
  const agents = new Map<string, AgentEntry>();
  for (const [name, entry] of agentEntries(writtenAgents)) {
    const named =
      typeof entry === 'object' && entry !== null
        ? withRegistryToolNames(entry as Record<string, unknown>)
        : entry;
    agents.set(name, validatedEntry(agentSchema, named, `${where}.agents.${name}`, context.method));
  }
  const tasks = new Map<string, TaskEntry>();
  (writtenTasks as Record<string, unknown>[]).forEach((task, index) => {
    const { name, ...entry } = task;
    const taskName = typeof name === 'string' && name !== '' ? name : `task_${index + 1}`;
    const validated = validatedEntry(taskSchema, entry, `${where}.tasks[${index}]`, context.method);
    if (validated.agent != null && !agents.has(validated.agent)) {
      throw new FlowMethodError(
        context.method,
        `${where}.tasks[${index}].agent: names the agent '${validated.agent}', which the crew does not define`,
      );
    }
    for (const earlier of validated.context ?? []) {
      if (!tasks.has(earlier))
        throw new FlowMethodError(
          context.method,
          `${where}.tasks[${index}].context: '${earlier}' is not an earlier task`,
        );
    }
    tasks.set(taskName, validated);
  });
  const crewConfig = validatedEntry(crewConfigSchema.partial(), config, where, context.method);
  return assembleCrew(typeof written.name === 'string' ? written.name : context.method, {
    config: crewConfig,
    agents,
    tasks,
    toolOrigins: {},
    root: context.sourceDir ?? process.cwd(),
  });
}

function agentEntries(written: unknown): [string, unknown][] {
  if (!Array.isArray(written)) return Object.entries(written as Record<string, unknown>);
  return written.map((agent: Record<string, unknown>) => {
    if ('name' in agent) {
      const { name, ...entry } = agent;
      return [String(name), entry];
    }
    const [[name, entry]] = Object.entries(agent) as [[string, unknown]];
    return [name, entry];
  });
}

/**
 * A JSON/JSONC crew (`crew.jsonc` with `agents/<name>.jsonc`), as crewAI's `from_declaration` reads it: a file or a
 * folder holding `crew.jsonc`/`crew.json`, relative to the flow file and inside its directory.
 */
async function declaredCrew(
  written: string,
  context: ActionContext,
): Promise<{ crew: CrewDefinition; defaults: Record<string, unknown> }> {
  const base = context.sourceDir ?? process.cwd();
  const resolved = path.resolve(base, written);
  const [realBase, real] = await Promise.all([realpath(base), realpath(resolved).catch(() => resolved)]);
  const relative = path.relative(realBase, real);
  if (context.sourceDir !== undefined && (relative.startsWith('..') || path.isAbsolute(relative))) {
    throw new FlowMethodError(
      context.method,
      'crew declaration path must be within the flow definition directory',
    );
  }
  const info = await stat(real).catch(() => undefined);
  const crewFile =
    info?.isDirectory() === true ? await findJsoncCrew(real) : info?.isFile() === true ? real : undefined;
  if (crewFile === undefined)
    throw new FlowMethodError(context.method, `crew declaration not found: ${written}`);
  const ignore = (): void => {};
  const loaded = await loadJsoncCrew(crewFile, context.dependencies.onWarning ?? ignore, ignore);
  // Python tool refs (`pkg.tools:LookupTool`) are named as the flow's registry knows them.
  const agents = new Map(
    [...loaded.agents].map(([name, agent]) => [
      name,
      { ...agent, ...(agent.tools == null ? {} : { tools: agent.tools.map(flowToolName) }) },
    ]),
  );
  const entries = { ...loaded, agents };
  const crew = assembleCrew(path.basename(path.dirname(crewFile)), {
    ...entries,
    root: path.dirname(crewFile),
  });
  const data = (await readJsoncFile(crewFile, path.basename(crewFile))).data as Record<string, unknown>;
  const defaults =
    typeof data.inputs === 'object' && data.inputs !== null ? (data.inputs as Record<string, unknown>) : {};
  return { crew, defaults };
}
