import type { CrewDefinition, McpServerConfig } from '../domain/crew.ts';
import { crewToolsSource } from './crew-tools/crew-tools-source.ts';
import type { ToolSource } from './tool-source.ts';

export interface CrewToolSourcesOptions {
  readonly crewDir: string;
  /** The built-in tools under crewAI's names. */
  readonly builtins: ToolSource;
  /** Makes the source for one MCP server, named as crews refer to it (its crew.yaml name, or its URL). */
  readonly mcpServer: (name: string, config: McpServerConfig) => ToolSource;
  /**
   * Makes the source of the crew's Python tools (crewAI's `@tool` functions and `BaseTool` classes crew.py names),
   * which leaves out what the crew's tools/ directory provides once that has opened.
   */
  readonly python?: (shadowedBy: {
    readonly opened: () => Promise<void>;
    readonly has: (name: string) => boolean;
  }) => ToolSource;
}

/**
 * Every tool source a crew draws on, highest precedence first: its `tools/` directory (which is how a crewAI
 * project's Python tools are replaced), the project's Python tools, its MCP servers (crew.yaml's, then URLs named in
 * agents' `mcps`), then the built-in tools (which crewAI's own, run in the project's Python, replace).
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
  const own = crewToolsSource(options.crewDir);
  let ownOpened: Promise<void> | undefined;
  const first: ToolSource = {
    ...own,
    open: () => {
      ownOpened = own.open();
      return ownOpened;
    },
  };
  const python = options.python?.({
    opened: () => ownOpened ?? Promise.resolve(),
    has: (name) => own.find(name) !== undefined,
  });
  return [first, ...(python === undefined ? [] : [python]), ...servers, ...byUrl, options.builtins];
}
