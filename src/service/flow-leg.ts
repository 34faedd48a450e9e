import { CrewdError } from '../domain/errors.ts';
import type { EngineEvent } from '../domain/events.ts';
import type { Execution, FlowReviewRequest } from '../domain/execution.ts';
import { summarize, type TaskOutput } from '../domain/task-output.ts';
import { emptyUsage } from '../domain/usage.ts';
import type { JsonValue } from '../flow/cel-values.ts';
import type { CrewRun } from '../flow/flow-action-context.ts';
import type { FlowEvent } from '../flow/flow-run.ts';
import { runFlow, pendingReview, type FlowOutcome } from '../flow/run-flow.ts';
import type { PriceTable } from '../llm/price-table.ts';
import type { MethodTraceEvent } from '../observability/execution-trace.ts';
import { eventRecord } from './event-records.ts';
import type { ExecutionLeg } from './execution-leg.ts';
import type { FlowCheckpoint } from './read-flow-checkpoint.ts';
import type { RunnableFlow } from './runnable-unit.ts';
import { StoreFlowJournal } from './store-flow-journal.ts';

export interface FlowLegOptions {
  readonly leg: ExecutionLeg;
  readonly unit: RunnableFlow;
  readonly signal: AbortSignal;
  readonly clock: () => Date;
  /** Each event of the crews and agents the flow's methods run: written as a crew's are, marked with its run. */
  readonly onEngineEvent: (event: EngineEvent, run: CrewRun) => Promise<void>;
  readonly warn?: (message: string) => void;
  /** Each method's start, end and failure (with crewd's message for it), for the execution's trace. */
  readonly onMethodEvent?: (event: MethodTraceEvent) => void;
  /** Where the runs in flight when the last process stopped stood: each goes on from its last completed step. */
  readonly checkpoint?: FlowCheckpoint;
  /** Prices the model calls of the flow's agents and crews into the execution's usage. */
  readonly prices?: PriceTable;
  /** The state a new run starts from, restored from an earlier execution (readRestoredState). */
  readonly restoredState?: Readonly<Record<string, unknown>>;
}

/**
 * Runs one leg of a flow execution: from its start, from a restart (completed methods replay from the journal in
 * the store, none runs again), or from a resume (the review's answer is given first; a rejection of a method without `emit` runs it again). Ends with the
 * execution PAUSED on a `human_feedback` method or SUCCESS; rejects when a method fails.
 */
export async function runFlowLeg(options: FlowLegOptions): Promise<FlowOutcome> {
  const { leg, unit, signal } = options;
  const execution = leg.execution;
  const journal = new StoreFlowJournal(leg);
  const answer = answerWaiting(execution);
  const checkpointOf = (run: CrewRun) => options.checkpoint?.take(run);
  const outcome = await runFlow({
    definition: unit.flow,
    journal,
    dependencies: {
      models: unit.models,
      tools: unit.tools,
      ...(unit.pythonActions === undefined ? {} : { pythonActions: unit.pythonActions }),
      defaultModel: unit.defaultModel,
      executionId: execution.id,
      onEngineEvent: (run, event) => journal.serialize(() => options.onEngineEvent(event, run)),
      clock: options.clock,
      checkpointOf,
      ...(options.prices === undefined ? {} : { prices: options.prices }),
      // The budgets are checked before every model call of the flow, in order with its writes: a pause names the
      // method, which goes on from its crew's last completed step once the budget is extended.
      beforeModelCall: (method, call) =>
        journal.serialize(() => leg.beforeModelCall({ ...call, taskId: method })),
      ...(options.warn === undefined ? {} : { onWarning: options.warn }),
    },
    inputs: execution.inputs,
    ...(execution.flowStateId == null ? {} : { stateId: execution.flowStateId }),
    ...(options.restoredState === undefined ? {} : { restoredState: options.restoredState }),
    ...answer,
    onEvent: (event) => {
      options.onMethodEvent?.(
        event.type === 'method-fail'
          ? { type: event.type, method: event.method, error: messageOf(event.error) }
          : { type: event.type, method: event.method },
      );
      journal.report(event, methodEventWrite(event));
    },
    ...(options.warn === undefined ? {} : { warn: options.warn }),
  });
  signal.throwIfAborted();
  await journal.settled();
  if (outcome.status === 'completed') {
    const { text, json } = resultOf(outcome.result);
    await leg.succeed(text, json);
    return outcome;
  }
  await pause(leg, outcome, callOf(leg.execution, outcome.method), options.clock());
  return outcome;
}

/** The answer a resume gave to the review the journal waits on; undefined when none waits or none was given. */
function answerWaiting(execution: Execution): { feedback: string; rejected: boolean } | undefined {
  const entries = journalEntries(execution);
  const waiting = pendingReview(entries);
  if (waiting === undefined) return undefined;
  // An answer to a budget pause (one before classifying this review's feedback, say) is no answer to the review.
  const given = execution.feedback.findLast(
    (feedback) =>
      feedback.taskId === waiting.method &&
      feedback.attempt === waiting.call &&
      feedback.budget === undefined,
  );
  return given === undefined ? undefined : { feedback: given.text, rejected: !given.approved };
}

/** The journal as the flow layer wrote it (the store keeps its entries opaque). */
export function journalEntries(execution: Execution): Parameters<typeof pendingReview>[0] {
  return (execution.flowJournal ?? []) as unknown as Parameters<typeof pendingReview>[0];
}

/** Which call of `method` waits: the journal's last action of it without feedback. */
function callOf(execution: Execution, method: string): number {
  const waiting = pendingReview(journalEntries(execution));
  return waiting?.method === method ? waiting.call : 1;
}

/** What a flow event writes to the execution's log; undefined for what the journal entry writes itself. */
function methodEventWrite(event: FlowEvent) {
  switch (event.type) {
    case 'method-start':
      return {
        patch: { currentTask: event.method },
        events: [eventRecord.methodStarted(event.method)],
      };
    case 'method-fail':
      return { events: [eventRecord.methodFailed(event.method, messageOf(event.error))] };
    case 'method-end':
      return undefined;
  }
}

async function pause(
  leg: ExecutionLeg,
  outcome: Extract<FlowOutcome, { status: 'paused' }>,
  call: number,
  now: Date,
): Promise<void> {
  const execution = leg.execution;
  const output = methodOutput(outcome.method, outcome.output, outcome.message, call);
  const review: FlowReviewRequest = {
    message: outcome.message,
    ...(outcome.emit === undefined ? {} : { emit: [...outcome.emit] }),
  };
  const notifications = leg.notifications;
  await leg.write((guard) => ({
    ...guard,
    state: 'PAUSED',
    pending: {
      taskId: outcome.method,
      attempt: call,
      output,
      review,
      ...leg.reviewDeadline(outcome.method, now),
    },
    patch: { currentTask: outcome.method },
    events: [eventRecord.methodReviewRequested(output, review)],
    outbox: notifications.humanInputRequested(execution, output, review),
  }));
}

/** A method's output as a task output: what `pending_human_input` and the human-input webhook carry. */
function methodOutput(method: string, value: JsonValue, message: string, call: number): TaskOutput {
  const { text, json } = resultOf(value);
  return {
    taskId: method,
    description: message,
    expectedOutput: '',
    summary: summarize(text),
    agent: '',
    output: text,
    outputJson: json,
    usage: emptyUsage,
    attempt: call,
  };
}

/**
 * A flow's output as `result` (text) and `result_json`: a string as it is; a crew's or agent's output by its
 * `raw` (and its JSON when it has one); any other object as JSON text, and as `result_json` too.
 */
export function resultOf(value: JsonValue): { text: string; json: Record<string, unknown> | null } {
  if (typeof value === 'string') return { text: value, json: null };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if (typeof value.raw === 'string') {
      const structured = value.json_dict ?? value.pydantic;
      return {
        text: value.raw,
        json:
          structured !== null && typeof structured === 'object' && !Array.isArray(structured)
            ? structured
            : null,
      };
    }
    return { text: JSON.stringify(value), json: value };
  }
  return { text: value === null ? '' : JSON.stringify(value), json: null };
}

/** A failed method's reason as clients may see it: crewd's own message, never an internal or provider text. */
function messageOf(error: unknown): string {
  return error instanceof CrewdError ? error.message : 'The method failed because of an internal error';
}
