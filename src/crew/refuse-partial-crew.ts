import { CrewdError } from '../domain/errors.ts';

/**
 * Refuses to run a crew that would lose parts of itself (what `crewd check` reports as not honoured), unless the
 * user allowed it: a crewAI project should run as written or not start, never quietly run as something else.
 */
export function refusePartialCrew(dropped: readonly string[], allowPartial: boolean): void {
  if (dropped.length === 0 || allowPartial) return;
  const parts = dropped.length === 1 ? '1 part' : `${dropped.length} parts`;
  throw new CrewdError(
    'CREW_INVALID',
    `crewd would leave out ${parts} of this crew (listed above); run \`crewd check\` for the full report, or pass --allow-partial to run without ${dropped.length === 1 ? 'it' : 'them'}`,
  );
}
