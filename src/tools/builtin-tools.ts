import { toolRegistryOf } from '../engine/tool.ts';
import type { ToolRegistry } from '../engine/tool.ts';

/**
 * The tools crews can name in `tools:`. None ship yet: crewAI's own tools call outside services, and tools from
 * MCP servers will join this registry.
 */
export function builtinTools(): ToolRegistry {
  return toolRegistryOf([]);
}
