import type { ProcessKind } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import { createCrewRun, ListenerError } from './crew-run.ts';
import type { CrewRun } from './crew-run.ts';
import type { RunCrewRequest, RunOutcome } from './run-crew-types.ts';
import { managerAgent } from './manager-agent.ts';
import { runSequentialProcess } from './sequential-process.ts';

/** A way of ordering a crew's work. */
type Process = (run: CrewRun) => Promise<RunOutcome>;

/**
 * crewAI's hierarchical process runs the tasks in the same order as the sequential one; what differs is who leads
 * each task (the manager, delegating: see task-lead.ts).
 */
const processes: Partial<Record<ProcessKind, Process>> = {
  sequential: runSequentialProcess,
  hierarchical: (run) => {
    managerAgent(run.request.crew); // refuses a crew without a manager before any task starts
    return runSequentialProcess(run);
  },
};

/** The process this engine runs the crew with; `CONFIG_INVALID` for one it cannot run yet. */
export function processFor(kind: ProcessKind): Process {
  const process = processes[kind];
  if (process === undefined) {
    throw new CrewdError(
      'CONFIG_INVALID',
      `The crew's process '${kind}' is not supported yet; use 'sequential' in crew.yaml`,
    );
  }
  return process;
}

/**
 * Runs a crew from its checkpoint until it completes or pauses for human input. Pure engine: it only calls the
 * models, the tools and `onEvent` (awaited before going on). Throws `TASK_FAILED` naming the failed task, the
 * signal's reason when aborted, and whatever `onEvent` throws, unchanged.
 */
export async function runCrew(request: RunCrewRequest): Promise<RunOutcome> {
  request.signal.throwIfAborted();
  try {
    return await processFor(request.crew.process)(createCrewRun(request));
  } catch (error) {
    if (error instanceof ListenerError) throw error.thrown;
    throw error;
  }
}
