/**
 * What answers a review nobody answered in time. A human-input task's deadline (tasks.yaml
 * `human_input_deadline` and `human_input_on_deadline`) is one; a flow's review with a `default_outcome` is another.
 */
export type ReviewOutcome =
  | { readonly approve: true }
  /** The task runs again with `feedback`, as if a person had rejected it with that text. */
  | { readonly approve: false; readonly feedback: string };

/** How long a review may wait, and what answers it then. */
export interface ReviewDeadline {
  readonly afterMs: number;
  readonly outcome: ReviewOutcome;
}

/** A deadline fixed for one pending review: when it passes, and what answers it then. */
export interface DueReview {
  readonly at: Date;
  readonly outcome: ReviewOutcome;
}

/** Who answered a review: a person on /resume, or crewd when its deadline passed. */
export type ReviewAnswerer = 'person' | 'deadline';

export function reviewDue(deadline: ReviewDeadline, pausedAt: Date): DueReview {
  return { at: new Date(pausedAt.getTime() + deadline.afterMs), outcome: deadline.outcome };
}
