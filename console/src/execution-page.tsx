import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api-client.ts';
import type { ApiClient } from './api-client.ts';
import { isFinished } from './api-types.ts';
import type { Delivery, ExecutionDetail, StepPayload } from './api-types.ts';
import { DeliveryTable } from './delivery-table.tsx';
import { followEvents } from './event-stream.ts';
import { FlowRoute, flowProgressOf } from './flow-route.tsx';
import { duration, shortId, time } from './format.ts';
import { usePolled } from './hooks.ts';
import { JsonTree } from './json-tree.tsx';
import { Markdown } from './markdown.tsx';
import { OutputFiles } from './output-files.tsx';
import { ReviewCard, budgetOf, choicesOf } from './review-card.tsx';
import { StateBadge } from './state-badge.tsx';
import { StepList } from './step-list.tsx';

interface Loaded {
  readonly detail: ExecutionDetail;
  readonly deliveries: readonly Delivery[];
}

/** One execution, kept live over its event stream: tasks, steps as they happen, review, deliveries, cancel. */
export function ExecutionPage({ client, id }: { client: ApiClient; id: string }) {
  const loaded = usePolled<Loaded>(
    async () => {
      const [detail, deliveries] = await Promise.all([client.detail(id), client.deliveries(id)]);
      return { detail, deliveries: deliveries.items };
    },
    id,
    // Webhook deliveries are retried apart from the execution's events; a slow refresh keeps them current.
    5000,
  );
  const [steps, setSteps] = useState<readonly StepPayload[]>([]);
  const [cancelError, setCancelError] = useState<string | null>(null);
  // What this page's last review answer did, shown once the review it answered is gone.
  const [answered, setAnswered] = useState<string | null>(null);
  const seen = useRef(0);
  seen.current = loaded.value?.detail.last_event_id ?? seen.current;
  const reload = useRef(loaded.reload);
  reload.current = loaded.reload;

  useEffect(() => {
    const controller = new AbortController();
    setSteps([]);
    void followEvents(
      id,
      client.headers(),
      0,
      (event) => {
        if (event.type === 'step-end') setSteps((previous) => [...previous, event.data]);
        // Anything past what the page shows changes tasks, state or deliveries: read the execution again.
        if (event.id > seen.current && event.type !== 'step-end') reload.current();
      },
      controller.signal,
    ).then(() => {
      if (!controller.signal.aborted) reload.current();
    });
    return () => controller.abort();
  }, [client, id]);

  if (loaded.value === null) {
    if (loaded.error instanceof ApiError && loaded.error.status === 404) {
      return (
        <section>
          <h1>Execution not found</h1>
          <p role="alert">There is no execution {id} that this token can see.</p>
          <a href="#/">Back to executions</a>
        </section>
      );
    }
    return loaded.error === null ? (
      <p aria-live="polite">Loading…</p>
    ) : (
      <p role="alert" class="error">
        {loaded.error.message}
      </p>
    );
  }
  const { detail, deliveries } = loaded.value;
  const cancel = async () => {
    setCancelError(null);
    try {
      await client.cancel(id);
      loaded.reload();
    } catch (failure) {
      setCancelError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  const pending = detail.pending_human_input;
  const flow = flowProgressOf(detail);

  return (
    <article aria-labelledby="execution-title">
      <div class="bar">
        <h1 id="execution-title">
          Execution <span class="mono">{shortId(detail.kickoff_id)}</span>
        </h1>
        <StateBadge state={detail.state} />
        {isFinished(detail.state) ? null : (
          <button type="button" class="danger" onClick={() => void cancel()}>
            Cancel execution
          </button>
        )}
      </div>
      <p class="status" aria-live="polite">
        {detail.status}
      </p>
      {cancelError === null ? null : (
        <p role="alert" class="error">
          {cancelError}
        </p>
      )}
      {detail.error === null ? null : (
        <div role="alert" class="error-box">
          <h2>What went wrong</h2>
          <p>{detail.error}</p>
        </div>
      )}
      <dl class="facts">
        <dt>Id</dt>
        <dd class="mono">{detail.kickoff_id}</dd>
        <dt>Started</dt>
        <dd>{new Date(detail.created_at).toLocaleString()}</dd>
        <dt>Run time</dt>
        <dd>{detail.execution_time === null ? '—' : `${detail.execution_time.toFixed(1)} s`}</dd>
        <dt>Tokens</dt>
        <dd>{detail.usage_metrics.total_tokens.toLocaleString()}</dd>
        <dt>Cost</dt>
        <dd>{costText(detail.usage_metrics)}</dd>
      </dl>
      <details class="box">
        <summary>Inputs and meta</summary>
        <JsonTree value={detail.inputs} label="inputs" />
        <JsonTree value={detail.meta} label="meta" />
      </details>

      {pending === null ? null : (
        <section class="box" aria-labelledby="review-title">
          <h2 id="review-title">Waiting for your review</h2>
          <ReviewCard
            key={`${pending.task_id}/${pending.attempt}`}
            client={client}
            headingLevel={3}
            review={{
              executionId: detail.kickoff_id,
              taskId: pending.task_id,
              attempt: pending.attempt,
              output: pending.output,
              ...choicesOf(pending),
              ...budgetOf(pending),
            }}
            earlierFeedback={detail.feedback.filter((given) => given.task_id === pending.task_id)}
            onAnswered={(done) => {
              setAnswered(done);
              loaded.reload();
            }}
          />
        </section>
      )}
      {pending === null && answered !== null ? (
        <p role="status" class="ok">
          {answered}
        </p>
      ) : null}

      {flow === null ? (
        <>
          <h2>Tasks</h2>
          <TaskTimeline detail={detail} steps={steps} />
        </>
      ) : (
        <FlowRoute progress={flow} />
      )}

      {detail.state === 'SUCCESS' && detail.result !== null ? (
        <section class="box" aria-labelledby="result-title">
          <h2 id="result-title">Result</h2>
          <Markdown text={detail.result} />
          {detail.result_json === null ? null : <JsonTree value={detail.result_json} label="result_json" />}
        </section>
      ) : null}

      <section aria-labelledby="files-title">
        <h2 id="files-title">Output files</h2>
        <OutputFiles client={client} files={detail.output_files} />
      </section>

      <h2>Webhook deliveries</h2>
      <DeliveryTable deliveries={deliveries} />
    </article>
  );
}

function TaskTimeline({ detail, steps }: { detail: ExecutionDetail; steps: readonly StepPayload[] }) {
  const taskIds = [...new Set(detail.timeline.map((entry) => entry.task_id))];
  if (taskIds.length === 0) return <p class="muted">No task has started yet.</p>;
  return (
    <ol class="timeline">
      {taskIds.map((taskId) => {
        const attempts = detail.timeline.filter((entry) => entry.task_id === taskId);
        const output = detail.tasks.find((task) => task.task_id === taskId);
        return (
          <li key={taskId} class="task" aria-label={`Task ${taskId}`}>
            <h3>{taskId}</h3>
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Agent</th>
                    <th scope="col">Attempt</th>
                    <th scope="col">Started</th>
                    <th scope="col">Duration</th>
                    <th scope="col" class="number">
                      Tokens
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {attempts.map((entry) => (
                    <tr key={entry.attempt}>
                      <td>{entry.agent}</td>
                      <td>{entry.attempt}</td>
                      <td>{time(entry.started_at)}</td>
                      <td>
                        {entry.ended_at === null && isFinished(detail.state)
                          ? 'stopped'
                          : duration(entry.started_at, entry.ended_at)}
                      </td>
                      <td class="number">{entry.total_tokens?.toLocaleString() ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <StepList steps={steps.filter((step) => step.task_id === taskId)} />
            {output === undefined ? null : (
              <div class="output" aria-label={`Output of ${taskId}`}>
                <Markdown text={output.output} />
                {output.output_json === null ? null : (
                  <JsonTree value={output.output_json} label="output_json" />
                )}
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** The cost so far, or why it is unknown: a model without a known price counts its tokens only. */
function costText(usage: { total_cost_usd?: number | null; unpriced_requests?: number }): string {
  if (usage.total_cost_usd === undefined) return '—';
  if (usage.total_cost_usd === null)
    return `unknown (${usage.unpriced_requests ?? 0} calls of unpriced models)`;
  return `$${usage.total_cost_usd.toFixed(4)}`;
}
