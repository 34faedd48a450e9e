import type { ProcessKind } from '../domain/crew.ts';
import { createRunContext, ListenerError } from './run-context.ts';
import type { RunContext } from './run-context.ts';
import type { RunCrewRequest, RunOutcome } from './run-request.ts';
import { managerAgent } from './manager-agent.ts';
import { runSequentialProcess } from './sequential-process.ts';

/** A way of ordering a crew's work. */
type Process = (run: RunContext) => Promise<RunOutcome>;

/**
 * crewAI's hierarchical process runs the tasks in the same order as the sequential one; what differs is who leads
 * each task (the manager, delegating: see task-lead.ts).
 */
const processes: Record<ProcessKind, Process> = {
  sequential: runSequentialProcess,
  hierarchical: (run) => {
    managerAgent(run.request.crew); // refuses a crew without a manager before any task starts
    return runSequentialProcess(run);
  },
};

/** The process this engine runs the crew with. */
export function processFor(kind: ProcessKind): Process {
  return processes[kind];
}

/**
 * Runs a crew from its checkpoint until it completes or pauses for human input. Pure engine: it only calls the
 * models, the tools and `onEvent` (awaited before going on). Throws `TASK_FAILED` naming the failed task, the
 * signal's reason when aborted, and whatever `onEvent` throws, unchanged.
 */
export async function runCrew(request: RunCrewRequest): Promise<RunOutcome> {
  request.signal.throwIfAborted();
  try {
    return await processFor(request.crew.process)(createRunContext(request));
  } catch (error) {
    if (error instanceof ListenerError) throw error.thrown;
    throw error;
  }
}
