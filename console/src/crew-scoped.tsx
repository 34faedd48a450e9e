import type { ComponentChildren } from 'preact';
import type { ApiClient } from './api-client.ts';
import { usePolled } from './hooks.ts';

/**
 * A page of one crew's (its kickoff form, its schedules), for the crew the route names (`#/<section>/<crew>`) or
 * else the first the token reaches. With several crews a picker switches between them; the page is made afresh for
 * each, its calls going to that crew's base URL.
 */
export function CrewScoped(props: {
  client: ApiClient;
  section: string;
  crew: string | undefined;
  children: (client: ApiClient) => ComponentChildren;
}) {
  const { client, section } = props;
  const crews = usePolled(() => client.crews(), 'crews', null);
  if (crews.value === null) {
    return crews.error === null ? (
      <p aria-live="polite">Loading…</p>
    ) : (
      <p role="alert" class="error">
        {crews.error.message}
      </p>
    );
  }
  const names = crews.value.crews.map((crew) => crew.name);
  const chosen = props.crew !== undefined && names.includes(props.crew) ? props.crew : names[0];
  if (chosen === undefined) return <p class="muted">This token reaches no crew.</p>;
  return (
    <>
      {names.length > 1 ? (
        <div class="field crew-picker">
          <label for="crew-picker">Crew</label>
          <select
            id="crew-picker"
            value={chosen}
            onChange={(event) => {
              location.hash = `#/${section}/${encodeURIComponent(event.currentTarget.value)}`;
            }}
          >
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <CrewPage key={chosen} client={client.forCrew(chosen)} render={props.children} />
    </>
  );
}

function CrewPage(props: { client: ApiClient; render: (client: ApiClient) => ComponentChildren }) {
  return <>{props.render(props.client)}</>;
}
