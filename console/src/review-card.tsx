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
}

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
  onAnswered: () => void;
  headingLevel?: 2 | 3;
}) {
  const { client, review } = props;
  const [feedback, setFeedback] = useState('');
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const fieldId = `feedback-${review.executionId}-${review.taskId}-${review.attempt}`;
  const Heading = props.headingLevel === 3 ? 'h3' : 'h2';

  const answer = async (approve: boolean) => {
    if (!approve && feedback.trim() === '') {
      setOutcome({ kind: 'error', message: 'Write what should change before sending the output back.' });
      return;
    }
    setOutcome({ kind: 'busy' });
    try {
      await client.resume(review.executionId, review.taskId, feedback, approve);
      setOutcome({
        kind: 'done',
        message: approve ? 'Approved.' : 'Sent back with your feedback; the task runs again.',
      });
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'NOT_PENDING_HUMAN_INPUT')
        setOutcome({ kind: 'lost' });
      else
        setOutcome({ kind: 'error', message: failure instanceof Error ? failure.message : String(failure) });
      if (!(failure instanceof ApiError && failure.code === 'NOT_PENDING_HUMAN_INPUT')) return;
    }
    props.onAnswered();
  };

  const answered = outcome.kind === 'done' || outcome.kind === 'lost';
  return (
    <article class="review" aria-label={`Review of ${review.taskId}`}>
      <Heading>
        {review.taskId} <span class="muted">attempt {review.attempt}</span>
      </Heading>
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
          <label for={fieldId}>Feedback</label>
          <textarea
            id={fieldId}
            rows={3}
            value={feedback}
            onInput={(event) => setFeedback(event.currentTarget.value)}
          />
          <div class="buttons">
            <button type="button" disabled={outcome.kind === 'busy'} onClick={() => void answer(true)}>
              Approve
            </button>
            <button
              type="button"
              class="secondary"
              disabled={outcome.kind === 'busy'}
              onClick={() => void answer(false)}
            >
              Reject with feedback
            </button>
          </div>
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
