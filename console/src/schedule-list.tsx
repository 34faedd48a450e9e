import { useState } from 'preact/hooks';
import type { ApiClient } from './api-client.ts';
import type { CrewDescription, ScheduleView } from './api-types.ts';
import { usePolled } from './hooks.ts';

/** The crew's schedules with what can be done to each, and a form for a new one. */
export function ScheduleList({ client }: { client: ApiClient }) {
  const schedules = usePolled(() => client.schedules(), 'schedules', 5000);
  const crew = usePolled(() => client.crew(), 'crew', null);
  const [error, setError] = useState<string | null>(null);

  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
    schedules.reload();
  };

  return (
    <section aria-labelledby="schedules-title">
      <h1 id="schedules-title">Schedules</h1>
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {schedules.value === null ? (
        <p aria-live="polite">{schedules.error?.message ?? 'Loading…'}</p>
      ) : schedules.value.schedules.length === 0 ? (
        <p class="muted">No schedules yet.</p>
      ) : (
        <table class="schedules">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">When</th>
              <th scope="col">Next</th>
              <th scope="col">Last</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {schedules.value.schedules.map((schedule) => (
              <ScheduleRow key={schedule.id} schedule={schedule} client={client} act={act} />
            ))}
          </tbody>
        </table>
      )}
      {crew.value === null ? null : <NewSchedule client={client} crew={crew.value} act={act} />}
    </section>
  );
}

function ScheduleRow(props: {
  schedule: ScheduleView;
  client: ApiClient;
  act: (work: () => Promise<unknown>) => Promise<void>;
}) {
  const { schedule, client, act } = props;
  const label = schedule.name ?? schedule.cron;
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>
        <code>{schedule.cron}</code> {schedule.timezone}
      </td>
      <td>{schedule.paused ? 'paused' : (schedule.next_due_at ?? '–')}</td>
      <td>{schedule.last_due_at ?? '–'}</td>
      <td class="actions">
        <button
          type="button"
          aria-label={`${schedule.paused ? 'Resume' : 'Pause'} ${label}`}
          onClick={() =>
            void act(() => client.scheduleAction(schedule.id, schedule.paused ? 'resume' : 'pause'))
          }
        >
          {schedule.paused ? 'Resume' : 'Pause'}
        </button>
        <button
          type="button"
          aria-label={`Run ${label} now`}
          onClick={() =>
            void act(async () => {
              const { kickoff_id } = (await client.scheduleAction(schedule.id, 'run')) as {
                kickoff_id: string;
              };
              location.hash = `#/executions/${encodeURIComponent(kickoff_id)}`;
            })
          }
        >
          Run now
        </button>
        <button
          type="button"
          class="quiet"
          aria-label={`Delete ${label}`}
          onClick={() => void act(() => client.deleteSchedule(schedule.id))}
        >
          Delete
        </button>
      </td>
    </tr>
  );
}

function NewSchedule(props: {
  client: ApiClient;
  crew: CrewDescription;
  act: (work: () => Promise<unknown>) => Promise<void>;
}) {
  const { client, crew, act } = props;
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [name, setName] = useState('');
  const [inputs, setInputs] = useState<Record<string, string>>({});

  const submit = (event: Event) => {
    event.preventDefault();
    void act(() => client.createSchedule({ cron, timezone, name, inputs }));
  };

  return (
    <form class="kickoff" onSubmit={submit} noValidate>
      <fieldset>
        <legend>New schedule</legend>
        <div class="field">
          <label for="schedule-name">Name</label>
          <input id="schedule-name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="schedule-cron">Cron expression</label>
          <input id="schedule-cron" value={cron} onInput={(event) => setCron(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="schedule-timezone">Time zone</label>
          <input
            id="schedule-timezone"
            value={timezone}
            onInput={(event) => setTimezone(event.currentTarget.value)}
          />
        </div>
        {crew.inputs.map((input) => (
          <div class="field" key={input}>
            <label for={`schedule-input-${input}`}>{input}</label>
            <input
              id={`schedule-input-${input}`}
              value={inputs[input] ?? ''}
              onInput={(event) => setInputs({ ...inputs, [input]: event.currentTarget.value })}
            />
          </div>
        ))}
      </fieldset>
      <button type="submit">Create schedule</button>
    </form>
  );
}
