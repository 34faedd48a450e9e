import type { CrewDefinition, CrewInputs, TaskDefinition } from '../domain/crew.ts';

/** The input the hosted platform fills with what triggered a run (an email, a form, a webhook body…). */
export const triggerPayloadInput = 'crewai_trigger_payload';

/**
 * The task as its prompt should show it: in a sequential crew, the first task's description gets the kickoff's
 * `crewai_trigger_payload` joined to it, as crewAI does, so a crew written for triggers runs the same here.
 * Only the prompt changes; task outputs and webhooks keep the description as written.
 */
export function withTriggerPayload(
  crew: Pick<CrewDefinition, 'process' | 'tasks'>,
  task: TaskDefinition,
  inputs: CrewInputs,
): TaskDefinition {
  const payload = Object.hasOwn(inputs, triggerPayloadInput) ? inputs[triggerPayloadInput] : undefined;
  if (crew.process !== 'sequential' || crew.tasks[0]?.name !== task.name || !isPresent(payload)) return task;
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return { ...task, description: `${task.description}\n\nTrigger Payload: ${text}` };
}

/** crewAI joins the payload only when it is truthy: an empty string, object or list adds nothing. */
function isPresent(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
