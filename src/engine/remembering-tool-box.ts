import type { StepReplay } from './step-journal.ts';
import type { ToolBox } from './tool-box.ts';
import type { ToolCache } from './tool-cache.ts';

/** A tool box that answers from the journal and the execution's tool cache before running a tool. */
export interface RememberingToolBox extends ToolBox {
  /** Whether the call's result came from the journal: its step is in the log already. */
  replayed(toolCallId: string): boolean;
}

export interface ToolMemory {
  /** The journal of the attempt being resumed, if any: its calls completed before the process stopped. */
  readonly replay: StepReplay | undefined;
  /** crewAI's tool cache; undefined when the agent turns caching off. */
  readonly cache: ToolCache | undefined;
  /** The conversation's scope: '' for the task's agent, the delegation path for a coworker; prefixes journal ids. */
  readonly scope?: string;
  /** Tools whose results are never cached (a delegation asks a coworker each time). */
  readonly uncached?: ReadonlySet<string>;
}

/**
 * Wraps `tools` so a call the journal recorded returns its recorded result, and a call made before in this
 * execution with the same arguments returns the cached one; only the rest run the tool.
 */
export function rememberingToolBox(
  tools: ToolBox,
  { replay, cache, scope = '', uncached }: ToolMemory,
): RememberingToolBox {
  const replayed = new Set<string>();
  return {
    ...tools,
    replayed: (toolCallId) => replayed.has(toolCallId),
    async run(toolCall, signal) {
      const recorded = replay?.toolResult(`${scope}${toolCall.id}`);
      if (recorded !== undefined) {
        replayed.add(toolCall.id);
        return recorded;
      }
      // The cache key tells apart instances of one tool with other preset arguments.
      const name = tools.cacheKey(toolCall.name);
      const kept = uncached?.has(tools.toolName(toolCall.name)) === true ? undefined : cache;
      const cached = kept?.get(name, toolCall.input);
      if (cached !== undefined) return cached;
      const result = await tools.run(toolCall, signal);
      // Failures are not kept: the same call may well work next time.
      if (kept !== undefined && !result.startsWith('Error:')) kept.set(name, toolCall.input, result);
      return result;
    },
  };
}
