import type { CrewPyEntry, CrewPyReading } from './python/read-crew-py.ts';
import type { Warn } from './validate-yaml.ts';
import type { KeyPath } from './key-path.ts';
import type { SourceLine, YamlFile } from './yaml-file.ts';

/** The raw config of a crew before validation: what the YAML says, with crew.py's arguments laid over it. */
export interface RawCrewConfig {
  readonly agents: YamlFile;
  readonly tasks: YamlFile;
  readonly crew: Record<string, unknown>;
}

/**
 * Lays what crew.py's methods pass over the YAML entries they read, as crewAI does: an argument given in
 * Python wins over the same key in `config=`. Tasks run in the order of the `@task` methods (crewAI's order);
 * a tasks.yaml entry no method reads is not part of the crew in crewAI either, so it is left out with a warning.
 */
export function applyCrewPy(raw: RawCrewConfig, reading: CrewPyReading, warn: Warn): RawCrewConfig {
  const agentData = mapping(raw.agents.data);
  const agentsByMethod = new Map(reading.agents.map((agent) => [agent.method, agent.name]));
  let agents = overlay(raw.agents, agentData, reading.agents, reading.file);
  if (reading.agents.length > 0) {
    // As in crewAI, the crew's agents are those crew.py builds: an agents.yaml entry none reads (another crew
    // class's, in a crew.py holding several) is not one of them.
    const built = new Set(reading.agents.map((agent) => agent.name));
    for (const name of agents.keys.filter((key) => !built.has(key))) {
      warn(
        `${raw.agents.file} (${name}): ${reading.file} does not build this agent, so it is not part of the crew (as in crewAI)`,
      );
    }
    const keys = agents.keys.filter((key) => built.has(key));
    agents = {
      ...agents,
      keys,
      data: Object.fromEntries(keys.map((name) => [name, agents.data[name] ?? {}])),
    };
  }
  for (const entry of Object.values(agents.data)) {
    // `llm: name` in agents.yaml may name an `@llm` method of the crew class.
    const llm = entry.llm;
    if (typeof llm === 'string' && reading.llmMethods.has(llm)) entry.llm = reading.llmMethods.get(llm);
  }

  const taskData = mapping(raw.tasks.data);
  let tasks = overlay(raw.tasks, taskData, reading.tasks, reading.file);
  const { agents: _agents, tasks: listedTasks, ...crewArguments } = reading.crew;
  // `Crew(tasks=[self.a(), self.b()])` picks and orders the tasks; `self.tasks` is every @task method in order.
  const taskOrder = Array.isArray(listedTasks)
    ? listedTasks.filter((name): name is string => typeof name === 'string')
    : reading.tasks.map((task) => task.name);
  if (taskOrder.length > 0) {
    const used = new Set(taskOrder);
    for (const name of tasks.keys) {
      if (!used.has(name)) {
        warn(
          `${raw.tasks.file} (${name}): ${reading.file} does not put this task in the crew, so it does not run (as in crewAI)`,
        );
      }
    }
    const keys = taskOrder.filter((name) => tasks.keys.includes(name));
    const data = Object.fromEntries(keys.map((name) => [name, tasks.data[name] ?? {}]));
    tasks = { ...tasks, keys, data };
  }
  for (const entry of Object.values(tasks.data)) {
    // tasks.yaml names agents by their crew.py method, which may read a config entry of another name.
    const agent = entry.agent;
    if (typeof agent === 'string') entry.agent = agentsByMethod.get(agent) ?? agent;
  }

  const crew = { ...raw.crew, ...crewArguments };
  if (Object.keys(reading.mcpServers).length > 0) {
    // crew.yaml's own servers keep their names; crew.py's join them.
    const declared = raw.crew.mcp_servers;
    crew.mcp_servers = { ...reading.mcpServers, ...(isObject(declared) ? declared : {}) };
  }
  return { agents, tasks, crew };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Entries = Record<string, Record<string, unknown>>;

function overlay(
  yaml: YamlFile,
  data: Entries,
  entries: readonly CrewPyEntry[],
  pythonFile: string,
): YamlFile & { data: Entries; keys: string[] } {
  const merged: Entries = {};
  for (const [name, value] of Object.entries(data)) merged[name] = { ...value };
  const keys = yaml.keys.filter((name) => Object.hasOwn(data, name));
  for (const name of Object.keys(data)) if (!keys.includes(name)) keys.push(name);
  const order: string[] = [];
  for (const entry of entries) {
    const base = entry.configKey === undefined ? data[entry.name] : data[entry.configKey];
    merged[entry.name] = { ...(base ?? {}), ...withoutNulls(entry.entry) };
    if (!order.includes(entry.name)) order.push(entry.name);
  }
  // Methods' order first (crewAI's), then entries only the YAML has.
  const allKeys = [...order, ...keys.filter((name) => !order.includes(name))];
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  // A key crew.py sets is named at its line there; an entry the YAML lacks, at its Agent(...)/Task(...) call.
  const origin = (path: KeyPath): SourceLine | undefined => {
    const [name, key] = path;
    const entry = byName.get(String(name));
    if (entry === undefined) return yaml.origin?.(path);
    const line = key === undefined ? undefined : entry.lines[String(key)];
    if (line !== undefined) return { file: pythonFile, line };
    return yaml.lineOf([String(name)]) === undefined ? { file: pythonFile, line: entry.line } : undefined;
  };
  return { ...yaml, data: merged, keys: allKeys, origin };
}

/** crewAI fills a key from config only when the argument is None, so a None argument leaves the YAML's. */
function withoutNulls(entry: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== null));
}

function mapping(data: unknown): Entries {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  const entries: Entries = {};
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    entries[name] =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { ...(value as Record<string, unknown>) }
        : {};
  }
  return entries;
}
