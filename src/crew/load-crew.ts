import path from 'node:path';
import type {
  AgentDefinition,
  CrewDefinition,
  JsonSchema,
  McpServerConfig,
  PythonTools,
  TaskDefinition,
} from '../domain/crew.ts';
import { CrewLoadError } from '../domain/errors.ts';
import { applyCrewPy } from './apply-crew-py.ts';
import { agentSchema } from './agent-schema.ts';
import type { AgentEntry } from './agent-schema.ts';
import { checkTaskReferences } from './check-task-references.ts';
import { crewConfigSchema } from './crew-config-schema.ts';
import type { CrewConfig } from './crew-config-schema.ts';
import { findJsoncCrew, loadJsoncCrew } from './load-jsonc-crew.ts';
import { locateCrewFiles } from './locate-crew-files.ts';
import type { CrewFile } from './locate-crew-files.ts';
import type { McpServerEntry } from './mcp-server-schema.ts';
import { unhonouredAgentKeys, unhonouredCrewKeys, unhonouredTaskKeys } from './unhonoured-keys.ts';
import { requiredInputs } from './placeholders.ts';
import { taskSchema } from './task-schema.ts';
import type { TaskEntry } from './task-schema.ts';
import type { KeyPath } from './key-path.ts';
import { modelKeys } from './schema-fields.ts';
import { SchemaProblem } from './python/pydantic-schema.ts';
import { readCrewPy } from './python/read-crew-py.ts';
import type { CrewPyReading } from './python/read-crew-py.ts';
import { locate, validateEntries, validateObject, warnUnknownKeys } from './validate-yaml.ts';
import type { Warn } from './validate-yaml.ts';
import { readYamlFile } from './yaml-file.ts';
import type { YamlFile } from './yaml-file.ts';

export interface LoadCrewOptions {
  /** Receives one message per ignored key, naming the file, the key path and the line. */
  readonly warn: Warn;
  /**
   * Receives one message per part of the project crewd cannot honour and leaves out (a Python callable, an
   * expression crew.py computes at run time, ...). Defaults to `warn`.
   */
  readonly drop?: Warn;
  /** Which crew of a project holding several (a Flow's `crews/<name>/`, or a package under `src/`). */
  readonly crew?: string;
  /** What `os.getenv(...)` in crew.py reads; none by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The keys that hold a model, in agents.yaml and crew.yaml. */
const modelSettingKeys = ['llm', 'function_calling_llm', 'manager_llm'];

/** crewAI's default bound on model calls per task attempt. */
const defaultMaxIter = 20;

/**
 * Loads a crew directory (or a crewAI project root) into a CrewDefinition with every default applied.
 * Throws a CrewLoadError naming the file, key and line of the first problem found.
 */
export async function loadCrew(dir: string, options: LoadCrewOptions): Promise<CrewDefinition> {
  const jsoncCrew = options.crew === undefined ? await findJsoncCrew(path.resolve(dir)) : undefined;
  if (jsoncCrew !== undefined) {
    const entries = await loadJsoncCrew(jsoncCrew, options.warn, options.drop ?? options.warn);
    return assembleCrew(path.basename(path.dirname(jsoncCrew)), {
      ...entries,
      root: path.dirname(jsoncCrew),
    });
  }
  const files = await locateCrewFiles(dir, options.crew);

  const drop = options.drop ?? options.warn;
  let crewYaml = files.crew === undefined ? undefined : await readYamlFile(files.crew.path, files.crew.name);
  let agentsYaml = await readCrewYaml(files.agents);
  let tasksYaml = await readCrewYaml(files.tasks);

  const reading =
    files.python === undefined
      ? undefined
      : await readCrewPy(files.python.path, {
          crewRoot: files.root,
          env: options.env ?? {},
          ...(files.crewClass === undefined ? {} : { crewClass: files.crewClass }),
        });
  if (files.crewClass !== undefined && reading === undefined) {
    // --crew named neither a crew folder of a project nor a class of a crew.py: there is only this one crew.
    throw new CrewLoadError(
      files.python?.name ?? dir,
      `holds no crew named "${files.crewClass}"; it is a single crew, so leave out --crew`,
    );
  }
  try {
    if (reading !== undefined) {
      for (const message of reading.notes) options.warn(message);
      for (const message of reading.dropped) drop(message);
      const crewData = isMapping(crewYaml?.data) ? crewYaml.data : {};
      const applied = applyCrewPy(
        { agents: agentsYaml, tasks: tasksYaml, crew: crewData },
        reading,
        options.warn,
      );
      agentsYaml = applied.agents;
      tasksYaml = applied.tasks;
      if (Object.keys(reading.crew).length > 0 || Object.keys(reading.mcpServers).length > 0) {
        // crew.yaml's lines still locate its own keys; crew.py's arguments are named by key alone.
        const base = crewYaml;
        const pythonFile = reading.file;
        const crewLines = reading.crewLines;
        crewYaml = {
          file: base?.file ?? reading.file,
          keys: [],
          lineOf: (path) => base?.lineOf(path),
          origin: (path) => {
            const line = path.length === 0 ? undefined : crewLines[String(path[0])];
            return line === undefined ? undefined : { file: pythonFile, line };
          },
          data: applied.crew,
        };
      }
    }
    tasksYaml = await resolveOutputClasses(tasksYaml, reading);
  } finally {
    // The trees go once the classes are resolved: every read and every `serve --watch` reload parses anew.
    reading?.close();
  }

  let config: CrewConfig = {};
  if (crewYaml !== undefined) {
    // An empty crew.yaml is as good as none.
    config = validateObject(crewYaml, [], crewYaml.data ?? {}, crewConfigSchema, options.warn, {
      keys: unhonouredCrewKeys,
      report: drop,
    });
    warnUnknownModelKeys(crewYaml, [[]], options.warn);
  }

  const agentEntries = validateEntries(agentsYaml, agentSchema, 'agents', options.warn, {
    keys: unhonouredAgentKeys,
    report: drop,
  });
  warnUnknownModelKeys(
    agentsYaml,
    Array.from(agentEntries.keys(), (name) => [name]),
    options.warn,
  );
  const taskEntries = validateEntries(tasksYaml, taskSchema, 'tasks', options.warn, {
    keys: unhonouredTaskKeys,
    report: drop,
  });
  checkTaskReferences(
    tasksYaml,
    taskEntries,
    { names: new Set(agentEntries.keys()), file: files.agents.name },
    config.process ?? 'sequential',
  );

  return assembleCrew(options.crew ?? path.basename(files.root), {
    config,
    agents: agentEntries,
    tasks: taskEntries,
    toolOrigins: reading?.toolOrigins ?? {},
    ...(reading === undefined ? {} : { pythonTools: reading.pythonTools }),
    root: files.root,
  });
}

/** The crew from validated entries, with every default applied; `fallbackName` when the config names none. Flows build their inline crews with it. */
export function assembleCrew(
  fallbackName: string,
  entries: {
    config: CrewConfig;
    agents: ReadonlyMap<string, AgentEntry>;
    tasks: ReadonlyMap<string, TaskEntry>;
    toolOrigins: Readonly<Record<string, string>>;
    pythonTools?: PythonTools;
    /** The crew's directory: a stdio MCP server's `cwd` is relative to it. */
    root: string;
  },
): CrewDefinition {
  const { config } = entries;
  const agents = new Map<string, AgentDefinition>();
  for (const [name, entry] of entries.agents) agents.set(name, toAgent(name, entry));
  const tasks = Array.from(entries.tasks, ([name, entry]) => toTask(name, entry));
  return {
    name: config.name ?? fallbackName,
    process: config.process ?? 'sequential',
    ...(config.llm == null ? {} : { llm: config.llm }),
    ...(config.manager_llm == null ? {} : { managerLlm: config.manager_llm }),
    ...(config.manager_agent == null ? {} : { managerAgent: config.manager_agent }),
    ...(config.function_calling_llm == null ? {} : { functionCallingLlm: config.function_calling_llm }),
    mcpServers: toMcpServers(config.mcp_servers ?? {}, entries.root),
    agents,
    tasks,
    ...(Object.keys(entries.toolOrigins).length === 0 ? {} : { toolOrigins: entries.toolOrigins }),
    ...(entries.pythonTools === undefined || Object.keys(entries.pythonTools.tools).length === 0
      ? {}
      : { pythonTools: entries.pythonTools }),
    requiredInputs: requiredInputs(agents.values(), tasks),
    ...(config.budget == null
      ? {}
      : {
          budget: {
            ...(config.budget.tokens == null ? {} : { tokens: config.budget.tokens }),
            ...(config.budget.cost_usd == null ? {} : { costUsd: config.budget.cost_usd }),
          },
        }),
  };
}

/** A crew's agents.yaml or tasks.yaml; one a crew.py script stands in for reads as empty. */
async function readCrewYaml(file: CrewFile): Promise<YamlFile> {
  if (file.missing) return { file: file.name, data: {}, keys: [], lineOf: () => undefined };
  return readYamlFile(file.path, file.name);
}

/** Reports keys crewd does not read inside the `llm:` mappings (and the like) of the entries at `paths`. */
function warnUnknownModelKeys(yaml: YamlFile, paths: readonly KeyPath[], warn: Warn): void {
  for (const path of paths) {
    const entry = valueAt(yaml.data, path);
    for (const key of modelSettingKeys) {
      warnUnknownKeys(yaml, [...path, key], valueAt(entry, [key]), modelKeys, warn);
    }
  }
}

function valueAt(data: unknown, path: KeyPath): unknown {
  let value = data;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/**
 * `output_json: Report` / `output_pydantic: Report` in tasks.yaml name a Pydantic class, crewAI's form; they
 * become the class's JSON Schema, read from crew.py and the modules it imports.
 */
async function resolveOutputClasses(
  tasksYaml: YamlFile,
  reading: CrewPyReading | undefined,
): Promise<YamlFile> {
  if (!isMapping(tasksYaml.data)) return tasksYaml;
  const data: Record<string, unknown> = { ...tasksYaml.data };
  for (const [name, entry] of Object.entries(data)) {
    if (!isMapping(entry)) continue;
    for (const key of ['output_json', 'output_pydantic']) {
      const className = entry[key];
      if (typeof className !== 'string') continue;
      const where = locate(tasksYaml, [name, key]);
      if (reading === undefined) {
        throw new CrewLoadError(
          tasksYaml.file,
          `names the class "${className}", but the crew has no crew.py to find it in; give a JSON Schema object instead`,
          where,
        );
      }
      let schema: JsonSchema | undefined;
      try {
        schema = await reading.modelSchema(className);
      } catch (error) {
        if (!(error instanceof SchemaProblem)) throw error;
        throw new CrewLoadError(error.file, error.message, { line: error.line });
      }
      if (schema === undefined) {
        throw new CrewLoadError(
          tasksYaml.file,
          `names the class "${className}", which ${reading.file} neither defines nor imports from the project`,
          where,
        );
      }
      data[name] = { ...entry, [key]: schema };
    }
  }
  return { ...tasksYaml, data };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toAgent(name: string, entry: AgentEntry): AgentDefinition {
  return {
    name,
    role: entry.role,
    goal: entry.goal,
    backstory: entry.backstory,
    ...(entry.llm == null ? {} : { llm: entry.llm }),
    ...(entry.function_calling_llm == null ? {} : { functionCallingLlm: entry.function_calling_llm }),
    tools: entry.tools ?? [],
    mcps: entry.mcps ?? [],
    ...(entry.tool_arguments == null ? {} : { toolArguments: entry.tool_arguments }),
    maxIter: entry.max_iter ?? defaultMaxIter,
    ...(entry.max_rpm == null ? {} : { maxRpm: entry.max_rpm }),
    allowDelegation: entry.allow_delegation ?? false,
    verbose: entry.verbose ?? false,
    ...(entry.cache == null ? {} : { cache: entry.cache }),
    ...(entry.inject_date == null ? {} : { injectDate: entry.inject_date }),
    ...(entry.date_format == null ? {} : { dateFormat: entry.date_format }),
    ...(entry.max_execution_time == null ? {} : { maxExecutionTime: entry.max_execution_time }),
    ...(entry.max_retry_limit == null ? {} : { maxRetryLimit: entry.max_retry_limit }),
  };
}

function toTask(name: string, entry: TaskEntry): TaskDefinition {
  const outputJson = entry.output_json ?? entry.output_pydantic;
  return {
    name,
    description: entry.description,
    expectedOutput: entry.expected_output,
    ...(entry.agent == null ? {} : { agent: entry.agent }),
    // Absent context means every earlier task; `[]` means none, so the two must stay distinct.
    ...(entry.context == null ? {} : { context: [...new Set(entry.context)] }),
    humanInput: entry.human_input ?? false,
    ...(entry.human_input_deadline == null || entry.human_input_on_deadline == null
      ? {}
      : { reviewDeadline: { afterMs: entry.human_input_deadline, outcome: entry.human_input_on_deadline } }),
    ...(outputJson == null ? {} : { outputJson }),
    ...(entry.tools == null ? {} : { tools: entry.tools }),
    ...(entry.tool_arguments == null ? {} : { toolArguments: entry.tool_arguments }),
    ...(entry.output_file == null ? {} : { outputFile: entry.output_file }),
    ...(entry.create_directory == null ? {} : { createDirectory: entry.create_directory }),
    ...(entry.markdown == null ? {} : { markdown: entry.markdown }),
    ...guardrailsOf(entry),
  };
}

/** crewAI's rules: `guardrails` wins over `guardrail`; `guardrail_max_retries` over the older `max_retries`. */
function guardrailsOf(entry: TaskEntry): Pick<TaskDefinition, 'guardrails' | 'guardrailMaxRetries'> {
  const guardrails = entry.guardrails ?? (entry.guardrail == null ? [] : [entry.guardrail]);
  if (guardrails.length === 0) return {};
  const retries = entry.guardrail_max_retries ?? entry.max_retries;
  return { guardrails, ...(retries == null ? {} : { guardrailMaxRetries: retries }) };
}

/** crew.yaml's servers with defaults applied; a stdio server's `cwd` is relative to the crew directory. */
function toMcpServers(entries: Record<string, McpServerEntry>, root: string): Map<string, McpServerConfig> {
  const servers = new Map<string, McpServerConfig>();
  for (const [name, entry] of Object.entries(entries)) {
    const timeoutMs = entry.timeout == null ? {} : { timeoutMs: Math.round(entry.timeout * 1000) };
    servers.set(
      name,
      'command' in entry
        ? {
            kind: 'stdio',
            command: entry.command,
            args: entry.args ?? [],
            env: entry.env ?? {},
            cwd: path.resolve(root, entry.cwd ?? '.'),
            ...timeoutMs,
          }
        : { kind: 'http', url: entry.url, headers: entry.headers ?? {}, ...timeoutMs },
    );
  }
  return servers;
}
