import type { FlowJournal, FlowJournalEntry } from './flow-journal.ts';

/** A journal held in memory: for one process's runs (`crewd run`, tests). Entries are copied in and out. */
export class MemoryFlowJournal implements FlowJournal {
  readonly #entries: FlowJournalEntry[] = [];

  entries(): Promise<readonly FlowJournalEntry[]> {
    return Promise.resolve(structuredClone(this.#entries));
  }

  append(entry: FlowJournalEntry): Promise<void> {
    this.#entries.push(structuredClone(entry));
    return Promise.resolve();
  }

  /** The recorded entries as they are, for inspection. */
  get recorded(): readonly FlowJournalEntry[] {
    return this.#entries;
  }
}
