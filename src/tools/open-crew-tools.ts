import type { CrewDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import { builtinToolSource } from './builtin-tools.ts';
import { crewToolSources } from './crew-tool-sources.ts';
import { openToolRegistry } from './tool-registry.ts';
import type { OpenToolRegistry } from './tool-registry.ts';

export interface OpenCrewToolsOptions {
  readonly crewDir: string;
  /** crewd's environment: `${VAR}` in MCP server settings and the built-in tools' keys come from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Opens every tool source of a crew (for `serve` and `run` alike); close the registry on shutdown. */
export function openCrewTools(
  crew: CrewDefinition,
  options: OpenCrewToolsOptions,
): Promise<OpenToolRegistry> {
  return openToolRegistry(
    crewToolSources(crew, {
      crewDir: options.crewDir,
      builtins: builtinToolSource(),
      mcpServer: (name) => {
        throw new CrewdError('CONFIG_INVALID', `MCP server '${name}': MCP servers are not supported yet`);
      },
    }),
  );
}
