import type { ModelAnswer } from '../domain/events.ts';
import type { TokenUsage } from '../domain/usage.ts';

/** One completed step of a task attempt, as saved before the attempt went on. */
export type JournalEntry =
  | {
      readonly kind: 'model';
      readonly answer: ModelAnswer;
      readonly usage: TokenUsage;
      /** Whose conversation the answer belongs to: '' for the task's agent, a delegation's path for a coworker. */
      readonly scope?: string;
    }
  | { readonly kind: 'tool'; readonly toolCallId: string; readonly result: string }
  /** A guardrail check whose result is reported; its model call, if any, is the model entry before it. */
  | { readonly kind: 'guardrail' };

/** The completed steps of the task attempt that was in flight when its process stopped. */
export interface StepJournal {
  readonly taskId: string;
  readonly attempt: number;
  /** In the order they happened. */
  readonly entries: readonly JournalEntry[];
}

/**
 * Replays a journal into a new run of the same attempt: model answers in the order they came in each conversation
 * (the task agent's, and each coworker's a delegation started), tool results by call id (scoped the same way). The
 * agent loop is deterministic given those, so the attempt reaches where it stopped without calling again.
 */
export class StepReplay {
  readonly #answers = new Map<string, Extract<JournalEntry, { kind: 'model' }>[]>();
  readonly #results: Map<string, string>;
  #guardrailChecks: number;

  constructor(entries: readonly JournalEntry[]) {
    for (const entry of entries) {
      if (entry.kind !== 'model') continue;
      const scope = entry.scope ?? '';
      const queue = this.#answers.get(scope);
      if (queue === undefined) this.#answers.set(scope, [entry]);
      else queue.push(entry);
    }
    this.#results = new Map(
      entries.flatMap((entry) => (entry.kind === 'tool' ? [[entry.toolCallId, entry.result]] : [])),
    );
    this.#guardrailChecks = entries.filter((entry) => entry.kind === 'guardrail').length;
  }

  /**
   * True while the journal has reported guardrail checks left, counting this one off: checks run again in the same
   * order (a string guardrail's model answer replays like any other), but their events are in the log already.
   */
  guardrailReported(): boolean {
    if (this.#guardrailChecks === 0) return false;
    this.#guardrailChecks -= 1;
    return true;
  }

  /** The next recorded model answer of the `scope` conversation with its usage, or undefined once none is left. */
  nextAnswer(scope = ''): { readonly answer: ModelAnswer; readonly usage: TokenUsage } | undefined {
    return this.#answers.get(scope)?.shift();
  }

  /** The recorded result of a tool call, or undefined if the call never completed. */
  toolResult(toolCallId: string): string | undefined {
    return this.#results.get(toolCallId);
  }
}
