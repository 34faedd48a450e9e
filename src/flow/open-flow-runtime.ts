import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ModelResolver } from '../llm/chat-model.ts';
import { createModelResolver } from '../llm/resolve-model.ts';
import type { ModelAdapters } from '../llm/model-adapters.ts';
import { openCrewTools } from '../tools/open-crew-tools.ts';
import type { OpenCrewToolsOptions } from '../tools/open-crew-tools.ts';
import { PythonFlowHost } from '../tools/python/python-flow-host.ts';
import type { OpenToolRegistry } from '../tools/tool-registry.ts';
import { checkFlowTools } from './check-flow-tools.ts';
import type { PythonActionHost } from './flow-action-context.ts';
import { declaredCrewAgents } from './declared-crew-agents.ts';
import { flowAgents } from './flow-agents.ts';
import type { FlowAgent } from './flow-agents.ts';
import type { FlowDefinition } from './flow-definition.ts';
import { FlowDefinitionError } from './flow-errors.ts';
import { flowToolCrew } from './flow-tool-crew.ts';
import { flowToolName } from './flow-tool-reference.ts';
import { loadFlow } from './load-flow.ts';
import { pythonFlowActions } from './python-flow-actions.ts';
import { refusePythonActions } from './refuse-python-parts.ts';

export interface OpenFlowRuntimeOptions {
  /** A flow file, a directory holding `flow.yaml`, or a crewAI project declaring its flow in pyproject.toml. */
  readonly target: string;
  /** crewd's environment with the project's `.env` beneath it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly warn: (message: string) => void;
  /** How the flow's tool sources open, beyond its directory and environment. */
  readonly tools: Omit<OpenCrewToolsOptions, 'crewDir' | 'env'>;
  /** Records every model call to this replay file (`crewd run --record`). */
  readonly recordFile?: string | undefined;
  readonly logger?: Logger | undefined;
  /** Where provider models make their calls: in this thread unless given (a server gives its model thread's). */
  readonly modelAdapters?: ModelAdapters;
}

/** A flow opened for running: its definition and the models, tools and Python its methods use, open until `close`. */
export interface FlowRuntime {
  readonly definition: FlowDefinition;
  readonly models: ModelResolver;
  readonly tools: OpenToolRegistry;
  /** Runs `code`, `tool` and `script` actions; undefined when the flow has none. */
  readonly pythonActions: PythonActionHost | undefined;
  /** What runs the flow's Python (interpreter, where it was chosen from, version); undefined without Python parts. */
  readonly python: string | undefined;
  close(): Promise<void>;
}

/** crewAI runs `script` actions only when this variable says so; crewd asks the same. */
const scriptOptIn = 'CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION';

/**
 * Opens a flow the way `run`, `check` (and the service) all can: loads it, starts the project's Python when the flow
 * has Python parts (refusing them, naming the method, when there is no Python), imports a Pydantic state class for
 * its JSON Schema, opens the tool sources its agents draw on as a crew's (the flow directory's `tools/`, the
 * project's Python tools named by ref, MCP servers, the built-in tools) and refuses a tool no source provides.
 * A flow inside a crewAI project (pyproject.toml) has that project's tools and Python.
 */
export async function openFlowRuntime(options: OpenFlowRuntimeOptions): Promise<FlowRuntime> {
  const { env, warn } = options;
  let definition = await loadFlow(options.target, { warn, acceptPythonActions: true });
  const root = (await stat(options.target)).isDirectory()
    ? path.resolve(options.target)
    : (definition.sourceDir ?? path.dirname(path.resolve(options.target)));
  const sourceRoot = (await isDirectory(path.join(root, 'src'))) ? path.join(root, 'src') : root;
  refuseScriptsWithoutOptIn(definition, env);

  const state = definition.state;
  const stateRef = state?.type === 'pydantic' && typeof state.ref === 'string' ? state.ref : undefined;
  const pythonMethods = methodsRunningPython(definition);
  let host: PythonFlowHost | undefined;
  if (pythonMethods.length > 0 || stateRef !== undefined) {
    try {
      host = await PythonFlowHost.open({ projectRoot: root, sourceRoot, env, logger: options.logger });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      for (const method of pythonMethods) {
        refusePythonActions(definition.file, method, definition.methods.get(method)!.action, {
          available: false,
          reason,
        });
      }
    }
  }
  let stateModel: string | undefined;
  if (stateRef !== undefined && state?.type === 'pydantic') {
    const schema = await host
      ?.request({ op: 'flow-state-schema', ref: stateRef })
      .then((answer) => answer.value as Record<string, unknown>)
      .catch((error: unknown) => {
        warn(
          `${definition.file} (state.ref): ${stateRef} cannot be imported (${error instanceof Error ? error.message : String(error)}); ` +
            (state.json_schema == null
              ? 'falling back to dict state, as crewAI does'
              : 'using state.json_schema, as crewAI does'),
        );
        return undefined;
      });
    if (schema !== undefined) {
      stateModel = stateRef;
      definition = { ...definition, state: { ...state, json_schema: schema } };
    } else if (host === undefined) {
      warn(
        `${definition.file} (state.ref): no Python to import ${stateRef}; following state.json_schema or dict state`,
      );
    }
  }

  const models = createModelResolver({
    env,
    baseDir: definition.sourceDir ?? root,
    recordFile: options.recordFile,
    adapters: options.modelAdapters,
  });
  const agents = [...flowAgents(definition), ...(await declaredCrewAgents(definition))];
  let tools: OpenToolRegistry;
  try {
    tools = await openCrewTools(flowToolCrew(definition.name, agents, sourceRoot), {
      ...options.tools,
      crewDir: root,
      env,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  } catch (error) {
    await host?.close();
    throw pythonToolRefusal(definition.file, agents, error);
  }
  try {
    checkFlowTools(definition.file, agents, tools);
  } catch (error) {
    await Promise.allSettled([tools.close(), host?.close()]);
    throw error;
  }
  const pythonActions =
    host === undefined || pythonMethods.length === 0
      ? undefined
      : pythonFlowActions(host, { name: definition.name, stateModel });
  return {
    definition,
    models,
    tools,
    pythonActions,
    python: host?.description,
    close: async () => {
      await Promise.allSettled([tools.close(), host?.close()]);
    },
  };
}

/** The methods with a `code`, `tool` or `script` action, directly or as an `each` step. */
export function methodsRunningPython(definition: FlowDefinition): string[] {
  return [...definition.methods.values()]
    .filter((method) => {
      const action = method.action;
      const calls = action.call === 'each' ? action.steps.map((step) => step.action.call) : [action.call];
      return calls.some((call) => call === 'code' || call === 'tool' || call === 'script');
    })
    .map((method) => method.name);
}

function refuseScriptsWithoutOptIn(
  definition: FlowDefinition,
  env: Readonly<Record<string, string | undefined>>,
): void {
  if (['1', 'true', 'yes'].includes((env[scriptOptIn] ?? '').trim().toLowerCase())) return;
  for (const method of definition.methods.values()) {
    const action = method.action;
    const calls = action.call === 'each' ? action.steps.map((step) => step.action.call) : [action.call];
    if (!calls.includes('script')) continue;
    throw new FlowDefinitionError(
      definition.file,
      'Flow script execution is disabled by default. ' +
        `Set ${scriptOptIn}=1 to enable it only for trusted flow definitions.`,
      `methods.${method.name}.do`,
    );
  }
}

/** A Python tool the project's Python cannot build, named with the method whose agent names it. */
function pythonToolRefusal(file: string, agents: readonly FlowAgent[], error: unknown): unknown {
  const message = error instanceof Error ? error.message : '';
  for (const agent of agents) {
    const tools = Array.isArray(agent.fields.tools) ? agent.fields.tools : [];
    for (const [index, written] of tools.entries()) {
      if (typeof written !== 'string' || !message.includes(`Python tool ${flowToolName(written)} `)) continue;
      return new FlowDefinitionError(
        file,
        `method '${agent.method}' gives an agent the tool '${written}', which the project's Python cannot provide: ${message}`,
        `${agent.key}.tools[${index}]`,
        error,
      );
    }
  }
  return error;
}

async function isDirectory(candidate: string): Promise<boolean> {
  return (await stat(candidate).catch(() => undefined))?.isDirectory() === true;
}
