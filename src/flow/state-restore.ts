import type { FlowDefinition } from './flow-definition.ts';

/** Where a kickoff's run takes its state from: the state id it runs under, and the state id it restores. */
export interface KickoffState {
  readonly stateId: string;
  /** The state id whose latest saved state the run starts from; null for a fresh state. */
  readonly restoreFrom: string | null;
}

/**
 * The state a kickoff starts from, as crewAI's kickoff decides it. With flow-level `persist`, `restoreFromStateId`
 * forks that state under a new id (`inputs.id` when given), and `inputs.id` alone restores the state saved under it;
 * the run starts fresh, under that id, when none is found. Without `persist` both only name (or not) the state id,
 * as ever: `inputs.id`, else the state's default `id`, else a new one.
 */
export function kickoffState(
  definition: FlowDefinition,
  inputs: Readonly<Record<string, unknown>>,
  restoreFromStateId: string | undefined,
  newId: () => string,
): KickoffState {
  const named = typeof inputs.id === 'string' && inputs.id !== '' ? inputs.id : undefined;
  if (definition.persist && restoreFromStateId !== undefined && restoreFromStateId !== '')
    return { stateId: named ?? newId(), restoreFrom: restoreFromStateId };
  if (definition.persist && named !== undefined) return { stateId: named, restoreFrom: named };
  const defaultId = definition.state?.default?.id;
  return { stateId: named ?? (typeof defaultId === 'string' ? defaultId : newId()), restoreFrom: null };
}
