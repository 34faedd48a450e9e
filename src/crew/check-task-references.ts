import type { ProcessKind } from '../domain/crew.ts';
import { CrewLoadError } from '../domain/errors.ts';
import type { TaskEntry } from './task-schema.ts';
import { locate } from './validate-yaml.ts';
import type { YamlFile } from './yaml-file.ts';

/**
 * Checks what tasks name: each task's agent must exist, and its context may only name earlier tasks, since
 * tasks run in file order and a later task has no output yet. A task may leave out its agent only in a
 * hierarchical crew, whose manager then leads it (as in crewAI).
 */
export function checkTaskReferences(
  tasksYaml: YamlFile,
  tasks: ReadonlyMap<string, TaskEntry>,
  agents: { readonly names: ReadonlySet<string>; readonly file: string },
  process: ProcessKind,
): void {
  const order = [...tasks.keys()];
  for (const [index, [name, task]] of [...tasks].entries()) {
    checkReviewDeadline(tasksYaml, name, task);
    if (task.agent == null) {
      if (process === 'hierarchical') continue;
      const where = locate(tasksYaml, [name, 'agent']);
      throw new CrewLoadError(
        where.file,
        'is required; only the tasks of a hierarchical crew may leave their agent to the manager',
        where,
      );
    }
    if (!agents.names.has(task.agent)) {
      const where = locate(tasksYaml, [name, 'agent']);
      throw new CrewLoadError(
        where.file,
        `names agent "${task.agent}", which ${agents.file} does not define`,
        where,
      );
    }
    for (const [position, contextName] of (task.context ?? []).entries()) {
      const where = locate(tasksYaml, [name, 'context', position]);
      const contextIndex = order.indexOf(contextName);
      if (contextName === name) {
        throw new CrewLoadError(where.file, 'a task cannot be its own context', where);
      }
      if (contextIndex === -1) {
        throw new CrewLoadError(where.file, `names task "${contextName}", which is not defined`, where);
      }
      if (contextIndex > index) {
        throw new CrewLoadError(
          where.file,
          `names task "${contextName}", which runs later; context may only name earlier tasks`,
          where,
        );
      }
    }
  }
}

/** A review deadline belongs to a human-input task and says what answers the review when it passes. */
function checkReviewDeadline(tasksYaml: YamlFile, name: string, task: TaskEntry): void {
  const deadline = task.human_input_deadline != null;
  const outcome = task.human_input_on_deadline != null;
  if ((deadline || outcome) && task.human_input !== true) {
    const key = deadline ? 'human_input_deadline' : 'human_input_on_deadline';
    throw new CrewLoadError(tasksYaml.file, 'needs human_input: true', locate(tasksYaml, [name, key]));
  }
  if (deadline && !outcome) {
    throw new CrewLoadError(
      tasksYaml.file,
      'needs human_input_on_deadline (approve, or {reject: "…"}) to say what answers the review',
      locate(tasksYaml, [name, 'human_input_deadline']),
    );
  }
  if (outcome && !deadline) {
    throw new CrewLoadError(
      tasksYaml.file,
      'needs human_input_deadline to say when',
      locate(tasksYaml, [name, 'human_input_on_deadline']),
    );
  }
}
