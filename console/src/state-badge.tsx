import type { ExecutionState } from './api-types.ts';

const words: Record<ExecutionState, string> = {
  PENDING: 'Pending',
  RUNNING: 'Running',
  PAUSED: 'Waiting for review',
  SUCCESS: 'Succeeded',
  FAILED: 'Failed',
  REVOKED: 'Cancelled',
};

export function StateBadge({ state }: { state: ExecutionState }) {
  return (
    <span class={`badge badge-${state.toLowerCase()}`} title={state}>
      {words[state]}
    </span>
  );
}
