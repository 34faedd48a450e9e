import type { JsonValue } from './cel-values.ts';
import type { FlowState } from './flow-state.ts';

/** The bookkeeping of a run after a method completed: enough to show where it stands and to check a replay. */
export interface FlowBookkeeping {
  readonly state: FlowState;
  /** Completed methods' outputs in completion order (crewAI's `_method_outputs`). */
  readonly outputs: readonly { readonly method: string; readonly output: JsonValue }[];
  /** Multi-event OR listeners that fired and wait to be re-armed. */
  readonly firedOr: readonly string[];
  /** Events each listener (or `start:<name>`) has seen towards its condition. */
  readonly pendingEvents: Readonly<Record<string, readonly string[]>>;
  /** `listen` runs per method in this kickoff, checked against `max_method_calls`. */
  readonly callCounts: Readonly<Record<string, number>>;
}

/**
 * What a run records, in order. `call` numbers a method's executions from 1 within the run; a method run again
 * because its reviewer rejected its output runs as its next call.
 */
export type FlowJournalEntry =
  | { readonly kind: 'flow-started'; readonly state: FlowState }
  /** A `human_feedback` method's action finished: kept so a resume does not run it again. */
  | {
      readonly kind: 'action-completed';
      readonly method: string;
      readonly call: number;
      readonly output: JsonValue;
      /** The state once the action ran (Python actions may change it); absent in older journals. */
      readonly state?: FlowState;
    }
  | {
      readonly kind: 'feedback-given';
      readonly method: string;
      readonly call: number;
      readonly feedback: string;
      /** False when the reviewer rejected the output: a method without `emit` then runs again. Absent: approved. */
      readonly approved?: boolean;
      readonly outcome: string | null;
      readonly at: string;
    }
  | {
      readonly kind: 'method-completed';
      readonly method: string;
      readonly call: number;
      /** What `outputs.<method>` shows. */
      readonly output: JsonValue;
      /** What listeners receive and what a router routes on. */
      readonly result: JsonValue;
      /** What the flow's result is when this method completes last. */
      readonly final: JsonValue;
      readonly bookkeeping: FlowBookkeeping;
    };

/**
 * Where a flow run records its progress. A run appends each completed method; started again over the same journal
 * it replays what is recorded (no completed method runs again) and goes on from there. The durable service keeps
 * one per execution in its store; tests and `crewd run` keep it in memory.
 */
export interface FlowJournal {
  /** Everything recorded so far, oldest first; empty for a new run. */
  entries(): Promise<readonly FlowJournalEntry[]>;
  /** Records one entry; the run goes on only once it is kept. */
  append(entry: FlowJournalEntry): Promise<void>;
}
