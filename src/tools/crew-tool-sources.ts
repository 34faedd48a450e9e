import type { CrewDefinition, McpServerConfig } from '../domain/crew.ts';
import { crewToolsSource } from './crew-tools/crew-tools-source.ts';
import type { ToolSource } from './tool-source.ts';

export interface CrewToolSourcesOptions {
  readonly crewDir: string;
  /** The built-in tools under crewAI's names. */
  readonly builtins: ToolSource;
  /** Makes the source for one MCP server, named as crews refer to it (its crew.yaml name, or its URL). */
  readonly mcpServer: (name: string, config: McpServerConfig) => ToolSource;
}

/**
 * Every tool source a crew draws on, highest precedence first: its `tools/` directory (which is how a crewAI
 * project's Python tools are replaced), its MCP servers (crew.yaml's, then URLs named in agents' `mcps`), then the
 * built-in tools.
 */
export function crewToolSources(crew: CrewDefinition, options: CrewToolSourcesOptions): ToolSource[] {
  const servers = [...(crew.mcpServers ?? new Map<string, McpServerConfig>())].map(([name, config]) =>
    options.mcpServer(name, config),
  );
  // Only the crew's files name MCP URLs, so they are the operator's choice of address (see httpTransports).
  const urls = new Set(
    [...crew.agents.values()]
      .flatMap((agent) => agent.mcps ?? [])
      .filter((reference) => /^https?:\/\//i.test(reference))
      .map((reference) => reference.split('#')[0]!),
  );
  const byUrl = [...urls].map((url) => options.mcpServer(url, { kind: 'http', url, headers: {} }));
  return [crewToolsSource(options.crewDir), ...servers, ...byUrl, options.builtins];
}
