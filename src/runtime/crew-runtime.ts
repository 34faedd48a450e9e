import { loadCrew } from '../crew/load-crew.ts';
import { refusePartialCrew } from '../crew/refuse-partial-crew.ts';
import type { CrewDefinition } from '../domain/crew.ts';
import { checkCrew } from '../engine/check-crew.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import { createModelResolver } from '../llm/resolve-model.ts';
import type { ModelAdapters } from '../llm/model-adapters.ts';
import { openCrewTools, type OpenCrewToolsOptions } from '../tools/open-crew-tools.ts';
import type { OpenToolRegistry } from '../tools/tool-registry.ts';
import type { ToolSourceStatus } from '../tools/tool-source.ts';
import { refuseUnavailableSources } from './refuse-unavailable-sources.ts';

export interface CrewRuntimeOptions {
  /** The crew directory or crewAI project root. */
  readonly crewDir: string;
  /** Which crew of a project holding several (`--crew`). */
  readonly crewName?: string;
  /** crewd's environment, the project's `.env` included: models' keys, `${VAR}` in MCP settings, the tools' keys. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The loader's warnings, as lines for a person. */
  readonly warn: (message: string) => void;
  /** Each part the loader leaves out, as it is found; `warn` unless given. Always kept in `dropped` as well. */
  readonly drop?: (message: string) => void;
  /** Each tool source the crew starts without (with `allowPartial`); `warn` unless given. Kept in `unavailable`. */
  readonly startWithout?: (message: string) => void;
  /**
   * Opens a crew that loses parts of itself, or whose MCP servers cannot be reached at start (each named through
   * `warn`); refused otherwise (see refusePartialCrew and refuseUnavailableSources).
   */
  readonly allowPartial: boolean;
  /** The `provider/model` of agents and crews without `llm` (the MODEL variable). */
  readonly defaultModel: string | undefined;
  /** Run on the loaded crew before any tool source opens: a last look at it, or a changed copy to run instead. */
  readonly prepare?: (crew: CrewDefinition) => CrewDefinition;
  /** Records every model call to this replay file (`crewd run --record`). */
  readonly recordFile?: string;
  /** Where provider models make their calls: in this thread unless given (a server gives its model thread's). */
  readonly modelAdapters?: ModelAdapters;
  /** How the crew's tool sources open, beyond the crew directory and environment given above. */
  readonly tools: Omit<OpenCrewToolsOptions, 'crewDir' | 'env'>;
  /**
   * Whether to refuse at once a crew that cannot run (checkCrew): true for serving and running. `crewd check`
   * passes false and lists every problem in its report instead.
   */
  readonly check: boolean;
}

/** A crew opened for running: its definition, the models it resolves and its tool sources, open until `close`. */
export interface CrewRuntime {
  readonly crew: CrewDefinition;
  readonly models: ModelResolver;
  readonly tools: OpenToolRegistry;
  readonly defaultModel: string | undefined;
  /** What the loader left out of the crew (empty unless `allowPartial`). */
  readonly dropped: readonly string[];
  /** The tool sources that could not be used at start (empty unless `allowPartial`): MCP servers not reached. */
  readonly unavailable: readonly ToolSourceStatus[];
  /** Closes the tool sources (MCP connections, child processes); safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Opens a crew the way `serve`, `run` and `check` all do: loads it, refuses one that would lose parts of itself
 * unless allowed, resolves its models, opens its tool sources (refusing, unless allowed, to start without one) and
 * checks that it can run, closing what it opened when any of that fails. Each runtime holds only its own crew's resources, so several can be open in one process
 * and each is closed on its own.
 */
export async function openCrewRuntime(options: CrewRuntimeOptions): Promise<CrewRuntime> {
  const { crewDir, env, warn, defaultModel } = options;
  const drop = options.drop ?? warn;
  const dropped: string[] = [];
  const loaded = await loadCrew(crewDir, {
    warn,
    drop: (message) => {
      dropped.push(message);
      drop(message);
    },
    env,
    ...(options.crewName === undefined ? {} : { crew: options.crewName }),
  });
  refusePartialCrew(dropped, options.allowPartial);
  const crew = options.prepare?.(loaded) ?? loaded;
  // Models are only resolved here, never called: opening costs nothing and sends nothing.
  const models = createModelResolver({
    env,
    baseDir: crewDir,
    recordFile: options.recordFile,
    adapters: options.modelAdapters,
  });
  const tools = await openCrewTools(crew, { ...options.tools, crewDir, env });
  // Sources open without waiting past their first attempt: what is down now is down at start.
  const unavailable = tools.statuses().filter((status) => !status.up);
  try {
    refuseUnavailableSources(unavailable, options.allowPartial, options.startWithout ?? warn);
    // Every agent's model names, credentials and tools are checked now rather than after the first task has started.
    if (options.check) checkCrew(crew, { models, tools, defaultModel });
  } catch (error) {
    await tools.close();
    throw error;
  }
  return { crew, models, tools, defaultModel, dropped, unavailable, close: () => tools.close() };
}
