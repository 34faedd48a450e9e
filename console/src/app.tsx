import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiClient } from './api-client.ts';
import { CrewScoped } from './crew-scoped.tsx';
import { useHashRoute } from './hooks.ts';
import { ExecutionList } from './execution-list.tsx';
import { ExecutionPage } from './execution-page.tsx';
import { KickoffForm } from './kickoff-form.tsx';
import { ReviewInbox } from './review-inbox.tsx';
import { ScheduleList } from './schedule-list.tsx';
import { sessionToken } from './session-token.ts';
import { SignIn } from './sign-in.tsx';

export function App() {
  const [token, setToken] = useState(() => sessionToken.read());
  const client = useMemo(() => (token === null ? null : new ApiClient(token)), [token]);
  const route = useHashRoute();
  const main = useRef<HTMLElement>(null);
  const firstRoute = useRef(true);
  // After moving to another page, keyboard and screen reader users start at its content, not at the old focus.
  useEffect(() => {
    if (firstRoute.current) firstRoute.current = false;
    else main.current?.focus();
  }, [route]);

  if (client === null) {
    return (
      <SignIn
        onSignedIn={(accepted) => {
          sessionToken.write(accepted);
          setToken(accepted);
        }}
      />
    );
  }
  const signOut = () => {
    sessionToken.clear();
    setToken(null);
  };
  const execution = /^\/executions\/([^/]+)$/.exec(route);
  const section = execution !== null ? 'executions' : route.split('/')[1] || 'executions';
  // `#/kickoff/<crew>` and `#/schedules/<crew>` name the crew of a crew's own page.
  const routeCrew = route.split('/')[2];
  const crew = routeCrew === undefined || routeCrew === '' ? undefined : decodeURIComponent(routeCrew);
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">
          crewd
        </a>
        <nav aria-label="Sections">
          <a href="#/" aria-current={section === 'executions' ? 'page' : undefined}>
            Executions
          </a>
          <a href="#/inbox" aria-current={section === 'inbox' ? 'page' : undefined}>
            Review inbox
          </a>
          <a href="#/kickoff" aria-current={section === 'kickoff' ? 'page' : undefined}>
            Kick off
          </a>
          <a href="#/schedules" aria-current={section === 'schedules' ? 'page' : undefined}>
            Schedules
          </a>
        </nav>
        <button type="button" class="quiet" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {execution !== null ? (
          <ExecutionPage key={execution[1]} client={client} id={decodeURIComponent(execution[1] ?? '')} />
        ) : section === 'inbox' ? (
          <ReviewInbox client={client} />
        ) : section === 'kickoff' || section === 'schedules' ? (
          <CrewScoped key={section} client={client} section={section} crew={crew}>
            {(crewClient) =>
              section === 'kickoff' ? (
                <KickoffForm client={crewClient} />
              ) : (
                <ScheduleList client={crewClient} />
              )
            }
          </CrewScoped>
        ) : (
          <ExecutionList client={client} />
        )}
      </main>
    </>
  );
}
