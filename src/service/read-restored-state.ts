import type { Execution } from '../domain/execution.ts';
import type { ExecutionStore } from '../store/store.ts';
import { flowProgressOf } from './flow-progress.ts';

/**
 * The state a flow execution's new run restores (`restoreStateFrom`, set at kickoff when the flow has flow-level
 * `persist`): that of the latest earlier execution of the same crew under that state id that its owner can see,
 * as `/status` shows executions (an organization token's every one of the crew, a user token's only its user's).
 * It is that execution's state as it ended, or as its last completed method left it. Undefined when nothing is to
 * be restored: no restore asked, the run already started (its journal holds its state), or no such state (a miss,
 * which starts fresh, alike for a state id never used and one of executions the owner cannot see).
 */
export async function readRestoredState(
  store: Pick<ExecutionStore, 'latestFlowState'>,
  execution: Execution,
): Promise<Readonly<Record<string, unknown>> | undefined> {
  const from = execution.restoreStateFrom;
  const crew = execution.crew;
  if (from == null || crew == null || (execution.flowJournal ?? []).length > 0) return undefined;
  const userId = execution.owner.userId;
  const source = await store.latestFlowState({
    crew,
    stateId: from,
    ...(userId === null ? {} : { userId }),
    before: { createdAt: execution.createdAt, id: execution.id },
  });
  return source === null ? undefined : flowProgressOf(source)?.state;
}
