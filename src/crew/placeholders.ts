import type { AgentDefinition, CrewDefinition, CrewInputs, TaskDefinition } from '../domain/crew.ts';
import { CrewdError, MissingInputsError } from '../domain/errors.ts';

/* `{name}` placeholders in crew texts: finding them, the inputs a crew requires, and filling them in. */

/**
 * Only `{identifier}` is a placeholder: a letter or underscore, then letters, digits or underscores, with no
 * spaces inside the braces. So a JSON example such as `{"a": 1}`, or `{ a }`, is left alone.
 */
const placeholderPattern = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Placeholder names in `text`, in order of appearance, repeats included. */
export function findPlaceholders(text: string): string[] {
  return Array.from(text.matchAll(placeholderPattern), (match) => match[1] ?? '');
}

/**
 * Replaces each `{name}` in `text` with `inputs[name]`: strings as they are, any other value as JSON.
 * A placeholder with no value (absent, `null` or `undefined`) is left as written; kickoffs are checked
 * with `checkInputs` beforehand, so that only happens for text no input was asked for.
 */
export function interpolate(text: string, inputs: CrewInputs): string {
  return text.replace(placeholderPattern, (placeholder, name: string) => {
    const value = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
    if (value === undefined || value === null) return placeholder;
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? placeholder);
  });
}

type AgentTexts = Pick<AgentDefinition, 'role' | 'goal' | 'backstory'>;
type TaskTexts = Pick<TaskDefinition, 'description' | 'expectedOutput'>;

/**
 * The crew's required inputs: the distinct `{placeholder}` names, in order of first appearance, reading the
 * crew the way its files read: every agent in agents.yaml order (role, goal, backstory), then every task in
 * tasks.yaml order (description, expected_output). Agents no task names still count, as crewAI interpolates
 * every agent of a crew.
 */
export function requiredInputs(agents: Iterable<AgentTexts>, tasks: Iterable<TaskTexts>): string[] {
  const names = new Set<string>();
  const texts = [
    ...Array.from(agents, (agent) => [agent.role, agent.goal, agent.backstory]),
    ...Array.from(tasks, (task) => [task.description, task.expectedOutput]),
  ].flat();
  for (const text of texts) {
    for (const name of findPlaceholders(text)) names.add(name);
  }
  return [...names];
}

/**
 * Throws a MissingInputsError naming every required input that `inputs` lacks, in the crew's order.
 * A key whose value is `null` or `undefined` is missing; an empty string is a value.
 */
export function checkInputs(crew: Pick<CrewDefinition, 'requiredInputs'>, inputs: CrewInputs): void {
  const missing = crew.requiredInputs.filter((name) => {
    const value = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
    return value === undefined || value === null;
  });
  if (missing.length > 0) throw new MissingInputsError(missing);
}

/**
 * A task ready to run: its texts and its agent's texts with the kickoff's inputs filled in. No agent when the task
 * names none, which only a hierarchical crew allows: its manager leads the task.
 */
export interface RenderedTask {
  readonly task: TaskDefinition;
  readonly agent: AgentDefinition | undefined;
}

/** The agent with `{placeholders}` in role, goal and backstory replaced by `inputs`. */
export function renderAgent(agent: AgentDefinition, inputs: CrewInputs): AgentDefinition {
  return {
    ...agent,
    role: interpolate(agent.role, inputs),
    goal: interpolate(agent.goal, inputs),
    backstory: interpolate(agent.backstory, inputs),
  };
}

/** The task with its description and expected output interpolated, together with its rendered agent. */
export function renderTask(crew: CrewDefinition, task: TaskDefinition, inputs: CrewInputs): RenderedTask {
  const agent = task.agent === undefined ? undefined : crew.agents.get(task.agent);
  if (task.agent !== undefined && agent === undefined) {
    // loadCrew rejects such crews, so this only happens with a hand-built definition.
    throw new CrewdError(
      'CREW_INVALID',
      `Task "${task.name}" names agent "${task.agent}", which is not defined`,
    );
  }
  return {
    task: {
      ...task,
      description: interpolate(task.description, inputs),
      expectedOutput: interpolate(task.expectedOutput, inputs),
    },
    agent: agent === undefined ? undefined : renderAgent(agent, inputs),
  };
}
