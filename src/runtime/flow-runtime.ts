import { loadFlow } from '../flow/load-flow.ts';
import type { FlowDefinition } from '../flow/flow-definition.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import { createModelResolver } from '../llm/resolve-model.ts';
import { openToolRegistry, type OpenToolRegistry } from '../tools/tool-registry.ts';

export interface FlowRuntimeOptions {
  /** The flow file, a directory holding flow.yaml, or a crewAI project declaring one. */
  readonly target: string;
  /** crewd's environment with the project's `.env`: the models' keys. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The loader's warnings (parts crewd does not honour yet), as lines for a person. */
  readonly warn: (message: string) => void;
}

/** A flow opened for serving: its definition, the models its methods resolve, and the tools its agents may use. */
export interface FlowRuntime {
  readonly flow: FlowDefinition;
  readonly models: ModelResolver;
  readonly tools: OpenToolRegistry;
  close(): Promise<void>;
}

/**
 * Opens a flow the way `crewd serve` serves it: loads and checks it (a flow that does not load stops the server,
 * naming the file and key), and resolves its models without calling any. Python actions are refused at load here.
 */
export async function openFlowRuntime(options: FlowRuntimeOptions): Promise<FlowRuntime> {
  const flow = await loadFlow(options.target, { warn: options.warn });
  const baseDir = flow.sourceDir ?? options.target;
  const models = createModelResolver({ env: options.env, baseDir });
  const tools = await openToolRegistry([]);
  return { flow, models, tools, close: () => tools.close() };
}
