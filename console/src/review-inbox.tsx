import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from './api-client.ts';
import type { Feedback, StatusView } from './api-types.ts';
import { age, shortId } from './format.ts';
import { usePolled } from './hooks.ts';
import { ReviewCard, budgetOf, choicesOf } from './review-card.tsx';
import type { Review } from './review-card.tsx';

const refreshMs = 2000;
/** Paused executions are few; this bounds one refresh to ten requests however many there are. */
const maxPages = 10;

interface InboxItem {
  readonly key: string;
  readonly review: Review;
  readonly createdAt: string;
  /** No longer waiting, and not answered here: someone else answered it. */
  readonly gone: boolean;
}

async function loadPaused(client: ApiClient): Promise<StatusView[]> {
  const paused: StatusView[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const result = await client.list({
      state: 'PAUSED',
      limit: 100,
      ...(cursor === undefined ? {} : { cursor }),
    });
    paused.push(...result.items);
    if (result.next_cursor === null) break;
    cursor = result.next_cursor;
  }
  // Oldest first: the longest wait is answered first.
  return paused.reverse();
}

function toItem(execution: StatusView): InboxItem | null {
  const pending = execution.pending_human_input;
  if (pending === null) return null;
  return {
    key: `${execution.kickoff_id}/${pending.task_id}/${pending.attempt}`,
    review: {
      executionId: execution.kickoff_id,
      taskId: pending.task_id,
      attempt: pending.attempt,
      output: pending.output,
      ...choicesOf(pending),
      ...budgetOf(pending),
    },
    createdAt: execution.created_at,
    gone: false,
  };
}

/** Every execution waiting for human input, oldest first; keeps itself current while open. */
export function ReviewInbox({ client }: { client: ApiClient }) {
  const paused = usePolled(() => loadPaused(client), 'inbox', refreshMs);
  const [items, setItems] = useState<readonly InboxItem[]>([]);
  const [answeredHere, setAnsweredHere] = useState<ReadonlySet<string>>(new Set());

  useEffect(() => {
    if (paused.value === null) return;
    const current = paused.value.map(toItem).filter((item): item is InboxItem => item !== null);
    const currentKeys = new Set(current.map((item) => item.key));
    setItems((previous) => [
      // Reviews answered since they were shown stay in place, so the reviewer sees what became of them.
      ...previous.filter((item) => !currentKeys.has(item.key)).map((item) => ({ ...item, gone: true })),
      ...current,
    ]);
  }, [paused.value]);

  const waiting = paused.value?.filter((execution) => execution.pending_human_input !== null).length ?? null;
  return (
    <section aria-labelledby="inbox-title">
      <div class="bar">
        <h1 id="inbox-title">Review inbox</h1>
        <p aria-live="polite" class="muted">
          {waiting === null ? 'Loading…' : waiting === 1 ? '1 waiting' : `${waiting} waiting`}
        </p>
      </div>
      {paused.error === null ? null : (
        <p role="alert" class="error">
          {paused.error.message}
        </p>
      )}
      {waiting === 0 && items.length === 0 ? <p>Nothing is waiting for review.</p> : null}
      {items.map((item) => (
        <div class="inbox-item" key={item.key}>
          <p class="muted">
            Execution{' '}
            <a class="mono" href={`#/executions/${encodeURIComponent(item.review.executionId)}`}>
              {shortId(item.review.executionId)}
            </a>
            , started {age(item.createdAt)} ago
          </p>
          {item.gone && !answeredHere.has(item.key) ? (
            <p class="warning" role="status">
              {item.review.taskId}, attempt {item.review.attempt}: another reviewer answered this review.
            </p>
          ) : (
            <InboxReview
              client={client}
              review={item.review}
              onAnswered={() => {
                setAnsweredHere((keys) => new Set([...keys, item.key]));
                paused.reload();
              }}
            />
          )}
        </div>
      ))}
    </section>
  );
}

/** A review card with the feedback given on earlier attempts, which only the execution's detail holds. */
function InboxReview(props: { client: ApiClient; review: Review; onAnswered: () => void }) {
  const { client, review } = props;
  const [earlier, setEarlier] = useState<readonly Feedback[]>([]);
  useEffect(() => {
    if (review.attempt === 1) return;
    client.detail(review.executionId).then(
      (detail) => setEarlier(detail.feedback.filter((given) => given.task_id === review.taskId)),
      () => setEarlier([]),
    );
  }, [client, review.executionId, review.taskId, review.attempt]);
  return (
    <ReviewCard client={client} review={review} earlierFeedback={earlier} onAnswered={props.onAnswered} />
  );
}
