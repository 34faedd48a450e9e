import path from 'node:path';
import type { AgentDefinition, CrewDefinition, McpServerConfig, TaskDefinition } from '../domain/crew.ts';
import { agentSchema } from './agent-schema.ts';
import type { AgentEntry } from './agent-schema.ts';
import { checkTaskReferences } from './check-task-references.ts';
import { crewConfigSchema } from './crew-config-schema.ts';
import type { CrewConfig } from './crew-config-schema.ts';
import { locateCrewFiles } from './locate-crew-files.ts';
import type { McpServerEntry } from './mcp-server-schema.ts';
import { requiredInputs } from './placeholders.ts';
import { taskSchema } from './task-schema.ts';
import type { TaskEntry } from './task-schema.ts';
import type { KeyPath } from './key-path.ts';
import { modelKeys } from './schema-fields.ts';
import { validateEntries, validateObject, warnUnknownKeys } from './validate-yaml.ts';
import type { Warn } from './validate-yaml.ts';
import { readYamlFile } from './yaml-file.ts';
import type { YamlFile } from './yaml-file.ts';

export interface LoadCrewOptions {
  /** Receives one message per ignored key, naming the file, the key path and the line. */
  readonly warn: Warn;
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
  const files = await locateCrewFiles(dir);

  let config: CrewConfig = {};
  if (files.crew !== undefined) {
    const crewYaml = await readYamlFile(files.crew.path, files.crew.name);
    // An empty crew.yaml is as good as none.
    config = validateObject(crewYaml, [], crewYaml.data ?? {}, crewConfigSchema, options.warn);
    warnUnknownModelKeys(crewYaml, [[]], options.warn);
  }

  const agentsYaml = await readYamlFile(files.agents.path, files.agents.name);
  const agentEntries = validateEntries(agentsYaml, agentSchema, 'agents', options.warn);
  warnUnknownModelKeys(
    agentsYaml,
    Array.from(agentEntries.keys(), (name) => [name]),
    options.warn,
  );
  const tasksYaml = await readYamlFile(files.tasks.path, files.tasks.name);
  const taskEntries = validateEntries(tasksYaml, taskSchema, 'tasks', options.warn);
  checkTaskReferences(tasksYaml, taskEntries, new Set(agentEntries.keys()), files.agents.name);

  const agents = new Map<string, AgentDefinition>();
  for (const [name, entry] of agentEntries) agents.set(name, toAgent(name, entry));
  const tasks = Array.from(taskEntries, ([name, entry]) => toTask(name, entry));

  return {
    name: config.name ?? path.basename(files.root),
    process: config.process ?? 'sequential',
    ...(config.llm == null ? {} : { llm: config.llm }),
    ...(config.manager_llm == null ? {} : { managerLlm: config.manager_llm }),
    ...(config.function_calling_llm == null ? {} : { functionCallingLlm: config.function_calling_llm }),
    mcpServers: toMcpServers(config.mcp_servers ?? {}, files.root),
    agents,
    tasks,
    requiredInputs: requiredInputs(agents.values(), tasks),
  };
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
    maxIter: entry.max_iter ?? defaultMaxIter,
    ...(entry.max_rpm == null ? {} : { maxRpm: entry.max_rpm }),
    allowDelegation: entry.allow_delegation ?? false,
    verbose: entry.verbose ?? false,
    ...(entry.cache == null ? {} : { cache: entry.cache }),
  };
}

function toTask(name: string, entry: TaskEntry): TaskDefinition {
  return {
    name,
    description: entry.description,
    expectedOutput: entry.expected_output,
    agent: entry.agent,
    // Absent context means every earlier task; `[]` means none, so the two must stay distinct.
    ...(entry.context == null ? {} : { context: [...new Set(entry.context)] }),
    humanInput: entry.human_input ?? false,
    ...(entry.output_json == null ? {} : { outputJson: entry.output_json }),
    ...(entry.tools == null ? {} : { tools: entry.tools }),
  };
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
