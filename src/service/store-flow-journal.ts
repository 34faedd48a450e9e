import type { FlowJournalRecord } from '../domain/execution.ts';
import type { FlowEvent } from '../flow/flow-run.ts';
import type { FlowJournal, FlowJournalEntry } from '../flow/flow-journal.ts';
import type { ExecutionChange } from '../store/store.ts';
import { eventRecord } from './event-records.ts';
import type { ExecutionLeg } from './execution-leg.ts';

/** What a flow event adds to the execution: its log entry, and the method now running. */
type EventWrite = Pick<ExecutionChange, 'patch' | 'events'>;

/**
 * A flow execution's journal kept in its store record, written through the execution's leg (so under its lease):
 * each entry is committed before the run goes on, with the method's end in its event log, so after a crash or a
 * handover another process replays completed methods instead of running them again.
 *
 * The flow reports method starts and failures synchronously; their writes are chained in order and every append
 * waits for them, so the log never shows a method's end before its start.
 */
export class StoreFlowJournal implements FlowJournal {
  #writes: Promise<void> = Promise.resolve();

  constructor(private readonly leg: ExecutionLeg) {}

  entries(): Promise<readonly FlowJournalEntry[]> {
    const records = this.leg.execution.flowJournal ?? [];
    return Promise.resolve(structuredClone(records) as unknown as FlowJournalEntry[]);
  }

  append(entry: FlowJournalEntry): Promise<void> {
    const record = entry as unknown as FlowJournalRecord;
    return this.#chain(() =>
      this.leg.write((guard) => ({
        ...guard,
        appendFlowEntry: record,
        ...(entry.kind === 'method-completed'
          ? { events: [eventRecord.methodEnded(entry.method, entry.result)] }
          : {}),
      })),
    );
  }

  /** Writes what a flow event adds to the log (undefined: nothing), after the writes before it. */
  report(_event: FlowEvent, write: EventWrite | undefined): void {
    if (write === undefined) return;
    // A failed write surfaces at the next append, or at `settled`.
    void this.#chain(() => this.leg.write((guard) => ({ ...guard, ...write }))).catch(() => {});
  }

  /** Runs `work` (a write of the crews inside the flow) after the writes before it, in order. */
  serialize(work: () => Promise<void>): Promise<void> {
    return this.#chain(work);
  }

  /** Resolves once every reported write is committed; rejects with the first that failed. */
  async settled(): Promise<void> {
    await this.#writes;
  }

  #chain(write: () => Promise<void>): Promise<void> {
    const next = this.#writes.then(write);
    this.#writes = next;
    return next;
  }
}
