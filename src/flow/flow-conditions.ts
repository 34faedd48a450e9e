import type { FlowCondition } from './flow-schema.ts';

/** Whether the events seen so far satisfy `condition`; `and` wins when both keys are written, as in crewAI. */
export function satisfied(condition: FlowCondition, seen: ReadonlySet<string>): boolean {
  if (typeof condition === 'string') return seen.has(condition);
  if (condition.and !== undefined) return condition.and.every((branch) => satisfied(branch, seen));
  if (condition.or !== undefined) return condition.or.some((branch) => satisfied(branch, seen));
  return false;
}

/** Whether `name` appears anywhere in the condition. */
export function mentions(condition: FlowCondition, name: string): boolean {
  if (typeof condition === 'string') return condition === name;
  return [...(condition.or ?? []), ...(condition.and ?? [])].some((branch) => mentions(branch, name));
}

/** An `or` of more than one branch at the top: crewAI fires such a listener once until it is re-armed. */
export function isMultiEventOr(condition: FlowCondition | undefined): boolean {
  return typeof condition === 'object' && condition.and === undefined && (condition.or?.length ?? 0) > 1;
}

/** The names an `or` lists directly (not under an `and`): the events that may race to trigger it. */
export function directOrBranches(condition: FlowCondition | undefined): string[] {
  if (!isMultiEventOr(condition) || typeof condition !== 'object') return [];
  return (condition.or ?? []).filter((branch): branch is string => typeof branch === 'string');
}
