import { stat } from 'node:fs/promises';
import path from 'node:path';
import { CrewLoadError } from '../domain/errors.ts';
import { agentSchema } from './agent-schema.ts';
import type { AgentEntry } from './agent-schema.ts';
import { checkTaskReferences } from './check-task-references.ts';
import { crewConfigSchema } from './crew-config-schema.ts';
import type { CrewConfig } from './crew-config-schema.ts';
import { readJsoncFile } from './jsonc-file.ts';
import { taskSchema } from './task-schema.ts';
import type { TaskEntry } from './task-schema.ts';
import { validateObject } from './validate-yaml.ts';
import type { Warn } from './validate-yaml.ts';
import { unhonouredAgentKeys, unhonouredCrewKeys, unhonouredTaskKeys } from './unhonoured-keys.ts';
import type { YamlFile } from './yaml-file.ts';

/** A JSONC crew's entries, validated by the same schemas as the YAML's. */
export interface JsoncCrewEntries {
  readonly config: CrewConfig;
  readonly agents: Map<string, AgentEntry>;
  readonly tasks: Map<string, TaskEntry>;
  /** `custom:<name>` tools, which crewAI loads from the project's `tools/<name>.py`. */
  readonly toolOrigins: Record<string, string>;
}

/** crewAI ≥ 1.15's JSON crew file in a project root: `crew.jsonc`, else `crew.json`. */
export async function findJsoncCrew(root: string): Promise<string | undefined> {
  for (const name of ['crew.jsonc', 'crew.json']) {
    const candidate = path.join(root, name);
    try {
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not there: try the next name.
    }
  }
  return undefined;
}

// Keys crewd reads elsewhere or that only name parts of the file; not keys of the crew itself.
const structuralCrewKeys = new Set(['agents', 'tasks', 'inputs']);

/**
 * Reads a crew as crewAI's JSON loader does: `crew.jsonc` lists agent names, each defined in
 * `agents/<name>.jsonc` (or `.json`) whose `settings` object holds further agent keys, and holds the tasks
 * inline as a list, each with a `name`.
 */
export async function loadJsoncCrew(crewPath: string, warn: Warn, drop: Warn): Promise<JsoncCrewEntries> {
  const root = path.dirname(crewPath);
  const crewFile = await readJsoncFile(crewPath, path.basename(crewPath));
  const definition = crewFile.data;
  if (!isMapping(definition)) throw new CrewLoadError(crewFile.file, 'must be a JSON object', { line: 1 });

  if (isMapping(definition.inputs) && Object.keys(definition.inputs).length > 0) {
    drop(
      `${crewFile.file} (inputs): crewd does not do default inputs yet: every input must be given at kickoff`,
    );
  }
  const crewData = Object.fromEntries(
    Object.entries(definition).filter(([key]) => !structuralCrewKeys.has(key)),
  );
  const config = validateObject(crewFile, [], crewData, crewConfigSchema, warn, {
    keys: unhonouredCrewKeys,
    report: drop,
  });
  const toolOrigins: Record<string, string> = {};

  const agentNames = definition.agents;
  if (
    !Array.isArray(agentNames) ||
    agentNames.length === 0 ||
    !agentNames.every((name) => typeof name === 'string')
  ) {
    throw new CrewLoadError(crewFile.file, "must list the agents' names", {
      key: 'agents',
      line: crewFile.lineOf(['agents']) ?? 1,
    });
  }
  const agents = new Map<string, AgentEntry>();
  for (const name of agentNames) {
    const agentPath = await agentFile(root, name);
    if (agentPath === undefined) {
      throw new CrewLoadError(
        crewFile.file,
        `names agent "${name}", but agents/${name}.jsonc does not exist`,
        {
          key: 'agents',
          line: crewFile.lineOf(['agents']) ?? 1,
        },
      );
    }
    const file = await readJsoncFile(agentPath, path.relative(root, agentPath).split(path.sep).join('/'));
    if (!isMapping(file.data)) throw new CrewLoadError(file.file, 'must be a JSON object', { line: 1 });
    const { settings, type: _type, ...fields } = file.data;
    const flattened = { ...fields, ...(isMapping(settings) ? settings : {}) };
    const lookup: YamlFile = {
      ...file,
      // A settings key is found under `settings`, where it is written.
      lineOf: (keyPath) =>
        keyPath.length > 0 && isMapping(settings) && Object.hasOwn(settings, String(keyPath[0]))
          ? file.lineOf(['settings', ...keyPath])
          : file.lineOf(keyPath),
    };
    const entry = validateObject(lookup, [], flattened, agentSchema, warn, {
      keys: unhonouredAgentKeys,
      report: drop,
    });
    agents.set(name, {
      ...entry,
      ...(entry.tools == null ? {} : { tools: customTools(entry.tools, toolOrigins) }),
    });
  }

  const taskList = definition.tasks;
  if (!Array.isArray(taskList) || taskList.length === 0) {
    throw new CrewLoadError(crewFile.file, 'must list the tasks', {
      key: 'tasks',
      line: crewFile.lineOf(['tasks']) ?? 1,
    });
  }
  const names = taskList.map((task, index) =>
    isMapping(task) && typeof task.name === 'string' && task.name !== '' ? task.name : `task_${index + 1}`,
  );
  const tasks = new Map<string, TaskEntry>();
  // Task errors name `<task name>.<key>`; lines come from the task's place in the list.
  const tasksFile: YamlFile = {
    ...crewFile,
    lineOf: (keyPath) => {
      const index = names.indexOf(String(keyPath[0]));
      return crewFile.lineOf(index === -1 ? ['tasks'] : ['tasks', index, ...keyPath.slice(1)]);
    },
  };
  for (const [index, task] of (taskList as unknown[]).entries()) {
    const name = names[index] ?? `task_${index + 1}`;
    if (tasks.has(name)) {
      throw new CrewLoadError(crewFile.file, `defines task "${name}" twice`, {
        key: `tasks[${index}].name`,
        line: crewFile.lineOf(['tasks', index]) ?? 1,
      });
    }
    const fields: unknown = isMapping(task)
      ? Object.fromEntries(Object.entries(task).filter(([key]) => key !== 'name'))
      : task;
    const entry = validateObject(tasksFile, [name], fields, taskSchema, warn, {
      keys: unhonouredTaskKeys,
      report: drop,
    });
    tasks.set(name, {
      ...entry,
      ...(entry.tools == null ? {} : { tools: customTools(entry.tools, toolOrigins) }),
    });
  }
  checkTaskReferences(
    tasksFile,
    tasks,
    { names: new Set(agents.keys()), file: 'agents/' },
    config.process ?? 'sequential',
  );
  return { config, agents, tasks, toolOrigins };
}

async function agentFile(root: string, name: string): Promise<string | undefined> {
  for (const extension of ['.jsonc', '.json']) {
    const candidate = path.join(root, 'agents', `${name}${extension}`);
    try {
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not there: try the next extension.
    }
  }
  return undefined;
}

/** `custom:<name>` is crewAI's reference to `tools/<name>.py`: the tool is `<name>`, its origin that file. */
function customTools(tools: readonly string[], origins: Record<string, string>): string[] {
  return tools.map((tool) => {
    if (!tool.startsWith('custom:')) return tool;
    const name = tool.slice('custom:'.length);
    origins[name] = `tools/${name}.py`;
    return name;
  });
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
