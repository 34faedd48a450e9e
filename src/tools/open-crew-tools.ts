import type { Logger } from 'pino';
import type { CrewDefinition } from '../domain/crew.ts';
import { builtinToolSource } from './builtin/index.ts';
import { crewToolSources } from './crew-tool-sources.ts';
import { lazyMcpToolSource } from './mcp/lazy-mcp-tool-source.ts';
import { PythonToolSource } from './python/python-tool-source.ts';
import { pythonToolTimeoutMs } from './python/python-tool-timeout.ts';
import { openToolRegistry } from './tool-registry.ts';
import type { OpenToolRegistry } from './tool-registry.ts';

export interface OpenCrewToolsOptions {
  readonly crewDir: string;
  /** crewd's environment: `${VAR}` in MCP server settings and the built-in tools' keys come from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where executions keep their files; file tools write in `<workspaceRoot>/<execution id>/`. */
  readonly workspaceRoot: string;
  /** crewd's own files (`crewdStatePaths`): file tools never read them, even where they lie inside the crew. */
  readonly crewdState: readonly string[];
  /**
   * The directory the crew is served from, when `crewDir` is a version of it copied out of the store (which keeps
   * no `.venv/`): the project's virtual environment there runs the version's Python tools while it exists.
   */
  readonly servedDir?: string;
  readonly logger?: Logger;
}

/** Opens every tool source of a crew (for `serve` and `run` alike); close the registry on shutdown. */
export function openCrewTools(
  crew: CrewDefinition,
  options: OpenCrewToolsOptions,
): Promise<OpenToolRegistry> {
  const { crewDir, env, logger } = options;
  return openToolRegistry(
    crewToolSources(crew, {
      crewDir,
      builtins: builtinToolSource({
        env,
        crewDir,
        workspaceRoot: options.workspaceRoot,
        crewdState: options.crewdState,
        allowPrivateTargets: env.CREWD_TOOLS_ALLOW_PRIVATE === '1',
      }),
      mcpServer: (name, config) => lazyMcpToolSource(name, config, { env, logger }),
      // Only a crew whose crew.py names Python tools has the source (and a line on /health/ready).
      ...(crew.pythonTools === undefined
        ? {}
        : {
            python: (shadowedBy) =>
              new PythonToolSource(crew, {
                crewDir,
                ...(options.servedDir === undefined ? {} : { servedDir: options.servedDir }),
                env,
                timeoutMs: pythonToolTimeoutMs(env),
                shadowedBy,
                logger,
              }),
          }),
    }),
  );
}
