import { useState } from 'preact/hooks';
import { ApiError } from './api-client.ts';
import type { ApiClient } from './api-client.ts';
import type { Feedback } from './api-types.ts';
import { Markdown } from './markdown.tsx';

export interface Review {
  readonly executionId: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly output: string;
  /** A flow method's review: the question it asks (its human_feedback message). */
  readonly message?: string;
  /** A flow method's review: the outcomes it routes on, each offered as a choice. */
  readonly outcomes?: readonly string[];
  /** Not a review of an output: the execution's budget is reached, and the answer extends it or stops it. */
  readonly budget?: boolean;
}

/** Whether a pending review is a budget pause. */
export function budgetOf(pending: { kind?: 'budget' | undefined }): Pick<Review, 'budget'> {
  return pending.kind === 'budget' ? { budget: true } : {};
}

/** The question and outcomes of a pending review, present when a flow method asks it (a crew's task has none). */
export function choicesOf(pending: {
  message?: string | undefined;
  emit?: readonly string[] | undefined;
}): Pick<Review, 'message' | 'outcomes'> {
  if (pending.emit === undefined) return {};
  return { outcomes: pending.emit, ...(pending.message === undefined ? {} : { message: pending.message }) };
}

/** How an answer is sent: approve or reject a crew's task, or pick one of a flow method's outcomes. */
type Answer =
  | { readonly kind: 'approve'; readonly budget?: boolean }
  | { readonly kind: 'reject'; readonly budget?: boolean }
  | { readonly kind: 'outcome'; readonly outcome: string }
  | { readonly kind: 'flow-feedback' };

type Outcome =
  | { readonly kind: 'idle' }
  | { readonly kind: 'busy' }
  | { readonly kind: 'done'; readonly message: string }
  | { readonly kind: 'lost' }
  | { readonly kind: 'error'; readonly message: string };

/** One output waiting for a person: approve it, or send it back with feedback, in one step. */
export function ReviewCard(props: {
  client: ApiClient;
  review: Review;
  earlierFeedback: readonly Feedback[];
  /** Called after an answer was accepted, or refused because another reviewer answered first. */
  /** Called once the review is answered here (with what was done) or was found answered by another reviewer. */
  onAnswered: (done: string | null) => void;
  headingLevel?: 2 | 3;
}) {
  const { client, review } = props;
  const [feedback, setFeedback] = useState('');
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const fieldId = `feedback-${review.executionId}-${review.taskId}-${review.attempt}`;
  const Heading = props.headingLevel === 3 ? 'h3' : 'h2';

  const answer = async (given: Answer) => {
    let done: string | null = null;
    // Stopping an execution on its budget needs no reason; sending an output back does.
    const needsText = (given.kind === 'reject' && given.budget !== true) || given.kind === 'flow-feedback';
    if (needsText && feedback.trim() === '') {
      setOutcome({
        kind: 'error',
        message:
          given.kind === 'reject'
            ? 'Write what should change before sending the output back.'
            : 'Write your feedback before sending it, or pick an outcome.',
      });
      return;
    }
    setOutcome({ kind: 'busy' });
    try {
      // A flow routes on the outcome named in the feedback; free text is matched to an outcome by the flow.
      const text = given.kind === 'outcome' ? given.outcome : feedback;
      await client.resume(
        review.executionId,
        review.taskId,
        text,
        given.kind !== 'reject' && given.kind !== 'flow-feedback',
      );
      done = doneMessage(given);
      setOutcome({ kind: 'done', message: done });
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'NOT_PENDING_HUMAN_INPUT')
        setOutcome({ kind: 'lost' });
      else
        setOutcome({ kind: 'error', message: failure instanceof Error ? failure.message : String(failure) });
      if (!(failure instanceof ApiError && failure.code === 'NOT_PENDING_HUMAN_INPUT')) return;
    }
    props.onAnswered(done);
  };

  const answered = outcome.kind === 'done' || outcome.kind === 'lost';
  return (
    <article class="review" aria-label={`Review of ${review.taskId}`}>
      <Heading>
        {review.taskId}{' '}
        <span class="muted">{review.budget === true ? 'budget reached' : `attempt ${review.attempt}`}</span>
      </Heading>
      {review.message === undefined ? null : <p class="question">{review.message}</p>}
      <div class="output">
        <Markdown text={review.output} />
      </div>
      {props.earlierFeedback.length === 0 ? null : (
        <section class="earlier" aria-label="Earlier feedback">
          <h4>Earlier feedback</h4>
          <ol>
            {props.earlierFeedback.map((given) => (
              <li key={`${given.task_id}-${given.attempt}`}>
                <span class="muted">
                  attempt {given.attempt}, {given.approved ? 'approved' : 'sent back'}:
                </span>{' '}
                {given.feedback === '' ? <em>no feedback</em> : given.feedback}
              </li>
            ))}
          </ol>
        </section>
      )}
      {answered ? null : (
        <div class="answer">
          {review.outcomes === undefined ? null : (
            <div class="buttons" role="group" aria-label="Outcomes">
              {review.outcomes.map((choice) => (
                <button
                  key={choice}
                  type="button"
                  disabled={outcome.kind === 'busy'}
                  onClick={() => void answer({ kind: 'outcome', outcome: choice })}
                >
                  {choice}
                </button>
              ))}
            </div>
          )}
          <label for={fieldId}>Feedback</label>
          <textarea
            id={fieldId}
            rows={3}
            value={feedback}
            onInput={(event) => setFeedback(event.currentTarget.value)}
          />
          {review.budget === true ? (
            <div class="buttons">
              <button
                type="button"
                disabled={outcome.kind === 'busy'}
                onClick={() => void answer({ kind: 'approve', budget: true })}
              >
                Extend the budget
              </button>
              <button
                type="button"
                class="secondary"
                disabled={outcome.kind === 'busy'}
                onClick={() => void answer({ kind: 'reject', budget: true })}
              >
                Stop the execution
              </button>
            </div>
          ) : review.outcomes === undefined ? (
            <div class="buttons">
              <button
                type="button"
                disabled={outcome.kind === 'busy'}
                onClick={() => void answer({ kind: 'approve' })}
              >
                Approve
              </button>
              <button
                type="button"
                class="secondary"
                disabled={outcome.kind === 'busy'}
                onClick={() => void answer({ kind: 'reject' })}
              >
                Reject with feedback
              </button>
            </div>
          ) : (
            <div class="buttons">
              <button
                type="button"
                class="secondary"
                disabled={outcome.kind === 'busy'}
                onClick={() => void answer({ kind: 'flow-feedback' })}
              >
                Send feedback
              </button>
            </div>
          )}
        </div>
      )}
      <div role="status" aria-live="polite">
        {outcome.kind === 'done' ? <p class="ok">{outcome.message}</p> : null}
        {outcome.kind === 'lost' ? (
          <p class="warning">Another reviewer answered this review first; your answer was not applied.</p>
        ) : null}
      </div>
      {outcome.kind === 'error' ? (
        <p role="alert" class="error">
          {outcome.message}
        </p>
      ) : null}
    </article>
  );
}

function doneMessage(given: Answer): string {
  switch (given.kind) {
    case 'approve':
      return given.budget === true ? 'Budget extended; the execution goes on.' : 'Approved.';
    case 'reject':
      return given.budget === true
        ? 'Stopped: the budget was not extended.'
        : 'Sent back with your feedback; the task runs again.';
    case 'outcome':
      return `Answered ${given.outcome}; the flow goes on.`;
    case 'flow-feedback':
      return 'Sent your feedback; the flow goes on with the outcome it matches.';
  }
}
