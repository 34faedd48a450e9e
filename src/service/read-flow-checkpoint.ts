import type { Execution } from '../domain/execution.ts';
import type { FlowRunTag } from '../domain/execution-log.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import { addUsage, emptyUsage, type TokenUsage } from '../domain/usage.ts';
import type { Checkpoint } from '../engine/run-request.ts';
import type { StepJournal } from '../engine/step-journal.ts';
import type { FlowJournalEntry } from '../flow/flow-journal.ts';
import type { EventStore, StoredExecutionEvent } from '../store/store.ts';
import { callUsage, follow, resumedFromBudgetPause } from './read-step-journal.ts';

const pageSize = 500;

/** Where the crew and agent runs of a flow's methods in flight stood when the last process stopped. */
export class FlowCheckpoint {
  constructor(
    /** By run (`crewRunKey`): its completed tasks and the completed steps of its task in flight. */
    private readonly runs: Map<string, Checkpoint>,
    /**
     * What the method the execution names as current did in events written before runs were marked (by an
     * earlier version of crewd): it goes to that method's first run.
     */
    private unmarked: { readonly method: string; readonly checkpoint: Checkpoint } | undefined,
  ) {}

  /** Where `run` goes on from; undefined when it has nothing to go on from. Given once. */
  take(run: FlowRunTag): Checkpoint | undefined {
    const key = crewRunKey(run);
    const marked = this.runs.get(key);
    this.runs.delete(key);
    const { unmarked } = this;
    if (unmarked === undefined || unmarked.method !== run.method || run.run !== 1) return marked;
    this.unmarked = undefined;
    if (marked === undefined) return unmarked.checkpoint;
    const earlier = unmarked.checkpoint;
    const outputs = [
      ...earlier.outputs.filter((output) => !marked.outputs.some((later) => later.taskId === output.taskId)),
      ...marked.outputs,
    ];
    const journal = joined(earlier.journal, marked.journal);
    return { outputs, feedback: [], ...(journal === undefined ? {} : { journal }) };
  }
}

/** The key of a crew or agent run in a FlowCheckpoint. */
function crewRunKey(run: FlowRunTag): string {
  return `${run.method}#${run.call}#${run.run}`;
}

/** What a run did so far, as the log shows it. */
interface RunSoFar {
  outputs: TaskOutput[];
  journal: ReturnType<typeof follow>;
  /** What each task's model calls spent: a completed task's output carries it, as it did when it ended. */
  spent: Map<string, TokenUsage>;
}

/**
 * What the crew and agent runs of a flow did before its last process stopped, read back from the execution's event
 * log: for each run of a method call not yet completed, the tasks that ended and the completed steps of the task
 * attempt open then. Methods running side by side, and the runs of an `each`, each go on from their own last
 * completed step; so do those a review's or a budget's pause stopped. Undefined when the execution is not running
 * (or resumed from a budget pause or a review).
 */
export async function readFlowCheckpoint(
  store: EventStore,
  execution: Execution,
): Promise<FlowCheckpoint | undefined> {
  const reviewed = resumedFromReview(execution);
  if (execution.state !== 'RUNNING' && !resumedFromBudgetPause(execution) && !reviewed) return undefined;
  const completed = completedCalls(execution);
  const runs = new Map<string, RunSoFar>();
  // After a review the method named as current is the reviewed one: its call waiting for review is over, and a
  // rejection runs it anew.
  const unmarked = reviewed ? undefined : unmarkedReader(execution.currentTask);
  for (let after = 0; ;) {
    const page = await store.listEvents(execution.id, after, pageSize);
    for (const event of page) {
      const run = flowRunOf(event);
      if (run === undefined) {
        unmarked?.read(event);
        continue;
      }
      if (completed.has(`${run.method}#${run.call}`)) continue;
      const key = crewRunKey(run);
      let soFar = runs.get(key);
      if (soFar === undefined) {
        soFar = { outputs: [], journal: undefined, spent: new Map() };
        runs.set(key, soFar);
      }
      readInto(soFar, event);
    }
    if (page.length < pageSize) break;
    after = page.at(-1)!.sequence;
  }
  return new FlowCheckpoint(
    new Map([...runs].map(([key, soFar]) => [key, checkpointOf(soFar)])),
    unmarked?.result(),
  );
}

/**
 * True for a flow execution waiting to go on after its review was answered (by a person or its deadline): the
 * methods its pause stopped beside the reviewed one go on from their runs' last completed steps.
 */
export function resumedFromReview(execution: Execution): boolean {
  const answer = execution.feedback.at(-1);
  return execution.state === 'PENDING' && answer !== undefined && answer.budget === undefined;
}

/** One task attempt's steps from before and after runs were marked; the later attempt when they differ. */
function joined(earlier: StepJournal | undefined, later: StepJournal | undefined): StepJournal | undefined {
  if (earlier === undefined || later === undefined) return later ?? earlier;
  if (earlier.taskId !== later.taskId || earlier.attempt !== later.attempt) return later;
  return { ...later, entries: [...earlier.entries, ...later.entries] };
}

/** Method calls the journal holds as done (completed, or an action waiting for review): their runs are over. */
function completedCalls(execution: Execution): Set<string> {
  const done = new Set<string>();
  // The store keeps the flow layer's entries opaque.
  for (const entry of (execution.flowJournal ?? []) as unknown as FlowJournalEntry[]) {
    if (entry.kind === 'method-completed' || entry.kind === 'action-completed')
      done.add(`${entry.method}#${entry.call}`);
  }
  return done;
}

function flowRunOf(event: StoredExecutionEvent): FlowRunTag | undefined {
  return 'flow_run' in event.data ? event.data.flow_run : undefined;
}

function readInto(soFar: RunSoFar, event: StoredExecutionEvent): void {
  if (event.type === 'model-call-end') {
    const taskId = event.data.task_id;
    soFar.spent.set(taskId, addUsage(soFar.spent.get(taskId) ?? emptyUsage, callUsage(event.data)));
  }
  if (event.type === 'task-end')
    soFar.outputs.push(outputOf(event.data, soFar.spent.get(event.data.task_id)));
  soFar.journal = follow(soFar.journal, event);
}

function outputOf(
  data: Extract<StoredExecutionEvent, { type: 'task-end' }>['data'],
  spent: TokenUsage | undefined,
): TaskOutput {
  return {
    taskId: data.task_id,
    description: data.description,
    expectedOutput: data.expected_output,
    summary: data.summary,
    agent: data.agent,
    output: data.output,
    outputJson: data.output_json,
    // Already counted in the execution's usage when the task ended: a run that goes on reports it in its output.
    usage: spent ?? emptyUsage,
    attempt: data.attempt,
  };
}

function checkpointOf(soFar: RunSoFar): Checkpoint {
  return {
    outputs: soFar.outputs,
    feedback: [],
    ...(soFar.journal === undefined ? {} : { journal: soFar.journal }),
  };
}

/**
 * Reads events written before runs were marked as an earlier crewd read them: those of the method named as
 * current, from its last start, belong to its first run.
 */
function unmarkedReader(method: string | null) {
  if (method === null) return undefined;
  let inFlight = false;
  let soFar: RunSoFar = { outputs: [], journal: undefined, spent: new Map() };
  return {
    read(event: StoredExecutionEvent): void {
      if (event.type === 'method-start' && event.data.method === method) {
        // Started again after an earlier crash, it keeps what it had; a fresh start (a cycle) begins anew.
        if (!inFlight) soFar = { outputs: [], journal: undefined, spent: new Map() };
        inFlight = true;
        return;
      }
      if (event.type === 'method-end' && event.data.method === method) inFlight = false;
      // Its action done, the call waits for review: a call after the review begins anew.
      if (reviewRequested(event, method)) inFlight = false;
      if (flowLogEvent(event) || !inFlight) return;
      readInto(soFar, event);
    },
    result(): { method: string; checkpoint: Checkpoint } | undefined {
      if (!inFlight || (soFar.outputs.length === 0 && soFar.journal === undefined)) return undefined;
      return { method, checkpoint: checkpointOf(soFar) };
    },
  };
}

/** The flow's own entries: a method's start, end or failure of another method says nothing of this run. */
function flowLogEvent(event: StoredExecutionEvent): boolean {
  return event.type === 'method-start' || event.type === 'method-end' || event.type === 'method-fail';
}

/** A review of `method`'s output requested (not a budget's pause): the call's action completed. */
function reviewRequested(event: StoredExecutionEvent, method: string): boolean {
  return (
    event.type === 'human-input-request' && event.data.budget === undefined && event.data.task_id === method
  );
}
