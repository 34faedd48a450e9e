import type { BudgetScope } from './budget.ts';
import type { TokenUsage } from './usage.ts';

/** What one attempt of a task produced. The task webhook and `/status` `tasks[]` are built from it. */
export interface TaskOutput {
  /** The task's name in tasks.yaml. */
  readonly taskId: string;
  readonly description: string;
  readonly expectedOutput: string;
  /** The first words of the output, for lists and notifications. */
  readonly summary: string;
  /** The agent's role. */
  readonly agent: string;
  /** The raw final answer. */
  readonly output: string;
  /** The parsed answer when the task has `output_json`, else null. */
  readonly outputJson: Record<string, unknown> | null;
  readonly usage: TokenUsage;
  /** 1 for the first attempt; raised by each rejection on /resume. */
  readonly attempt: number;
  /** The task's `output_file` as saved in the execution's workspace, when it has one. */
  readonly outputFile?: SavedFile;
}

/** A file saved in an execution's workspace: its path there (`/`-separated) and its size. */
export interface SavedFile {
  readonly path: string;
  readonly bytes: number;
}

/** Feedback a person gave on a human-input task through /resume. */
export interface HumanFeedback {
  readonly taskId: string;
  /** The attempt the feedback was given on. */
  readonly attempt: number;
  readonly text: string;
  readonly approved: boolean;
  /** The output the feedback was given on; a rejected one is shown to the agent on its retry. */
  readonly output: string;
  /** Set when crewd answered the review itself because its deadline passed; absent when a person did. */
  readonly givenBy?: 'deadline';
  /** Set when the answer was to a budget pause rather than a task's review: it is no feedback on the task. */
  readonly budget?: BudgetScope;
}

/** Feedback on tasks' outputs, without the answers to budget pauses, which the tasks never see. */
export function taskFeedback(feedback: readonly HumanFeedback[]): readonly HumanFeedback[] {
  return feedback.some((given) => given.budget !== undefined)
    ? feedback.filter((given) => given.budget === undefined)
    : feedback;
}

/** How many times a budget of this scope was approved and so extended. */
export function budgetApprovals(feedback: readonly HumanFeedback[], scope: BudgetScope): number {
  return feedback.filter((given) => given.budget === scope && given.approved).length;
}

const summaryWords = 10;
/** A summary's length however long its words: an answer with no spaces is one word. */
const summaryChars = 200;

/** The first ten words of an output, at most 200 characters of them, with `...` when there was more. */
export function summarize(output: string): string {
  const text = output.trim();
  // Only the start is split: an answer of megabytes is not split whole for its first ten words.
  const start = text.slice(0, summaryChars * 2);
  const words = start.split(/\s+/).filter(Boolean);
  const joined = words.slice(0, summaryWords).join(' ');
  const summary = joined.slice(0, summaryChars);
  const more = words.length > summaryWords || start.length < text.length || summary.length < joined.length;
  return more ? `${summary}...` : summary;
}
