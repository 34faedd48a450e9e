import { useState } from 'preact/hooks';
import type { ApiClient } from './api-client.ts';
import { executionStates } from './api-types.ts';
import type { ExecutionState } from './api-types.ts';
import { listPageSize, takeEarlyFirstPage } from './first-page.ts';
import { age, shortId } from './format.ts';
import { usePolled } from './hooks.ts';
import { StateBadge } from './state-badge.tsx';

const refreshMs = 2000;

/** Executions newest first, a page at a time, refreshed while open. */
export function ExecutionList({ client }: { client: ApiClient }) {
  const [state, setState] = useState<ExecutionState | ''>('');
  // The cursors of the pages before this one: "Newer" goes back to the last of them.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const page = usePolled(
    () =>
      (state === '' && cursor === undefined ? takeEarlyFirstPage() : undefined) ??
      client.list({
        limit: listPageSize,
        ...(state === '' ? {} : { state }),
        ...(cursor === undefined ? {} : { cursor }),
      }),
    `${state}|${cursor ?? ''}`,
    refreshMs,
  );
  const now = Date.now();

  return (
    <section aria-labelledby="list-title">
      <div class="bar">
        <h1 id="list-title">Executions</h1>
        <label>
          State{' '}
          <select
            value={state}
            onChange={(event) => {
              setState(event.currentTarget.value as ExecutionState | '');
              setCursors([undefined]);
            }}
          >
            <option value="">All</option>
            {executionStates.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
      </div>
      {page.error === null ? null : (
        <p role="alert" class="error">
          {page.error.message}
        </p>
      )}
      {page.value === null ? (
        <p aria-live="polite">Loading…</p>
      ) : page.value.items.length === 0 ? (
        <p>No executions{state === '' ? '' : ` in state ${state}`} yet.</p>
      ) : (
        <div class="scroll">
          <table class="executions">
            <thead>
              <tr>
                <th scope="col">Execution</th>
                <th scope="col">State</th>
                <th scope="col">Current task</th>
                <th scope="col">Progress</th>
                <th scope="col">Age</th>
                <th scope="col" class="number">
                  Tokens
                </th>
              </tr>
            </thead>
            <tbody>
              {page.value.items.map((item) => (
                <tr key={item.kickoff_id} data-id={item.kickoff_id}>
                  <td>
                    <a href={`#/executions/${encodeURIComponent(item.kickoff_id)}`} class="mono">
                      {shortId(item.kickoff_id)}
                    </a>
                  </td>
                  <td>
                    <StateBadge state={item.state} />
                  </td>
                  <td>{item.current_task ?? '—'}</td>
                  <td>
                    <progress max={item.progress.total} value={item.progress.completed} aria-hidden="true" />{' '}
                    {item.progress.completed}/{item.progress.total}
                  </td>
                  <td>{age(item.created_at, now)}</td>
                  <td class="number">{item.usage_metrics.total_tokens.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          disabled={cursors.length === 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          ← Newer
        </button>
        <button
          type="button"
          disabled={page.value?.next_cursor == null}
          onClick={() => {
            const next = page.value?.next_cursor;
            if (next != null) setCursors([...cursors, next]);
          }}
        >
          Older →
        </button>
      </nav>
    </section>
  );
}
