import type { Execution } from '../domain/execution.ts';
import type { FlowJournalEntry } from '../flow/flow-journal.ts';

/** Where a flow execution stands, read from its journal: its state now, and the methods completed in order. */
export interface FlowProgress {
  readonly state: Readonly<Record<string, unknown>>;
  /** Completed methods, oldest first: the route the run took (a method run twice in a cycle appears twice). */
  readonly completed: readonly string[];
}

/** The progress of a flow execution; undefined for a crew's, or a flow's that has not started. */
export function flowProgressOf(execution: Execution): FlowProgress | undefined {
  const entries = (execution.flowJournal ?? []) as unknown as readonly FlowJournalEntry[];
  let state: Readonly<Record<string, unknown>> | undefined;
  const completed: string[] = [];
  for (const entry of entries) {
    if (entry.kind === 'flow-started') state = entry.state;
    if (entry.kind === 'method-completed') {
      state = entry.bookkeeping.state;
      completed.push(entry.method);
    }
  }
  return state === undefined ? undefined : { state, completed };
}
