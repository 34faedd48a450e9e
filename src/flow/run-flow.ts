import { randomUUID } from 'node:crypto';
import { CrewdError } from '../domain/errors.ts';
import type { ModelSpec } from '../domain/crew.ts';
import { emptyUsage } from '../domain/usage.ts';
import { estimateCall } from '../engine/call-cost.ts';
import type { ChatModel, ChatRequest } from '../llm/chat-model.ts';
import type { JsonValue } from './cel-values.ts';
import type { FlowDefinition, FlowMethodDefinition } from './flow-definition.ts';
import type { FlowRunDependencies } from './flow-action-context.ts';
import { feedbackOutcome } from './feedback-outcome.ts';
import { FlowStopped } from './flow-errors.ts';
import type { FlowJournal, FlowJournalEntry } from './flow-journal.ts';
import { FlowPause, FlowRun } from './flow-run.ts';
import type { FlowEvent } from './flow-run.ts';
import { applyInputs, initialState, stateModel } from './flow-state.ts';
import type { FlowState } from './flow-state.ts';

/** How a call to `runFlow` ended: the flow finished, or a `human_feedback` method waits for a person. */
export type FlowOutcome =
  | {
      readonly status: 'completed';
      /** The output of the method that completed last. */
      readonly result: JsonValue;
      readonly state: FlowState;
      readonly outputs: Readonly<Record<string, JsonValue>>;
    }
  | {
      readonly status: 'paused';
      readonly method: string;
      /** What the method produced, shown to the reviewer. */
      readonly output: JsonValue;
      readonly message: string;
      /** The outcomes feedback is mapped to; undefined when the method does not route. */
      readonly emit: readonly string[] | undefined;
      readonly state: FlowState;
    };

export interface RunFlowOptions {
  readonly definition: FlowDefinition;
  readonly journal: FlowJournal;
  readonly dependencies: FlowRunDependencies;
  /** Kickoff inputs, merged into state on a new run; ignored when the journal already holds the start. */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** A new run's state id (`kickoffState`); without it, the state's default `id` or a new one. */
  readonly stateId?: string;
  /**
   * The state a new run starts from in place of the defaults: the latest one saved under a state id (crewAI's
   * restore by id, or a fork). The inputs are merged into it, and it takes `stateId`.
   */
  readonly restoredState?: Readonly<Record<string, unknown>>;
  /** The answer to the pending review: the run goes on from the paused method. */
  readonly feedback?: string;
  /**
   * The reviewer rejected the output with `feedback`: a method without `emit` runs again with the feedback as
   * context and waits for review once more. With `emit` the feedback picks the outcome either way.
   */
  readonly rejected?: boolean;
  readonly onEvent?: (event: FlowEvent) => void;
  /** Problems crewAI only logs (a state schema it cannot build, …). */
  readonly warn?: (message: string) => void;
}

/**
 * Runs a flow until it completes or pauses. Over a journal that already holds part of the run (a paused run, one
 * cut short by a crash), completed methods are replayed from it, not run again. With `feedback`, the pending
 * review is answered first. Rejects with a FlowMethodError for a failed method, FlowInputsError for bad inputs.
 */
export async function runFlow(options: RunFlowOptions): Promise<FlowOutcome> {
  const { definition, journal, dependencies } = options;
  const entries = [...(await journal.entries())];
  const started = entries.find((entry) => entry.kind === 'flow-started');
  let state: FlowState;
  if (started === undefined) {
    const model = stateModel(definition, options.warn);
    state = initialState(model, dependencies.newId ?? randomUUID);
    if (options.restoredState !== undefined)
      state = { ...(options.restoredState as Record<string, JsonValue>), id: state.id };
    if (options.stateId !== undefined) state = { ...state, id: options.stateId };
    if (options.inputs !== undefined) state = applyInputs(model, state, options.inputs);
    await journal.append({ kind: 'flow-started', state });
  } else {
    state = started.state;
  }
  if (options.feedback !== undefined)
    entries.push(await answerReview(definition, journal, entries, options, dependencies));
  const run = new FlowRun(definition, state, journal, dependencies, entries, options.onEvent);
  try {
    await run.start();
  } catch (error) {
    if (error instanceof FlowStopped) throw error.thrown;
    if (!(error instanceof FlowPause)) throw error;
    const feedback = error.method.humanFeedback;
    return {
      status: 'paused',
      method: error.method.name,
      output: error.output,
      message: feedback?.message ?? '',
      emit: feedback?.emit,
      state: run.state,
    };
  }
  return { status: 'completed', result: run.result, state: run.state, outputs: run.outputsByName() };
}

/** The review a journal waits on: a `human_feedback` method whose action completed and has no feedback yet. */
export function pendingReview(
  entries: readonly FlowJournalEntry[],
): { method: string; call: number; output: JsonValue } | undefined {
  const answered = new Set(
    entries.flatMap((entry) => (entry.kind === 'feedback-given' ? [`${entry.method}#${entry.call}`] : [])),
  );
  const waiting = entries.filter(
    (entry) => entry.kind === 'action-completed' && !answered.has(`${entry.method}#${entry.call}`),
  );
  const last = waiting.at(-1);
  return last?.kind === 'action-completed'
    ? { method: last.method, call: last.call, output: last.output }
    : undefined;
}

async function answerReview(
  definition: FlowDefinition,
  journal: FlowJournal,
  entries: readonly FlowJournalEntry[],
  answer: { readonly feedback?: string; readonly rejected?: boolean },
  dependencies: FlowRunDependencies,
): Promise<FlowJournalEntry> {
  const feedback = answer.feedback ?? '';
  const pending = pendingReview(entries);
  const method = pending === undefined ? undefined : definition.methods.get(pending.method);
  if (pending === undefined || method?.humanFeedback === undefined) {
    throw new CrewdError('NOT_PENDING_HUMAN_INPUT', 'Execution is not in pending human input state');
  }
  const model = reviewModel(method, dependencies);
  const outcome = await feedbackOutcome({
    feedback,
    emit: method.humanFeedback.emit,
    defaultOutcome: method.humanFeedback.defaultOutcome,
    model,
    beforeCall: (chat) => beforeClassifying(pending, chat, model, dependencies),
  });
  const entry: FlowJournalEntry = {
    kind: 'feedback-given',
    method: pending.method,
    call: pending.call,
    feedback,
    ...(answer.rejected === true ? { approved: false } : {}),
    outcome,
    at: (dependencies.clock?.() ?? new Date()).toISOString(),
  };
  await journal.append(entry);
  return entry;
}

/**
 * The run's check before the call classifying a review's feedback, as the review's method's. What it throws
 * reaches runFlow's caller (no method runs yet): the review is answered again, and the call made, when the run
 * goes on.
 */
async function beforeClassifying(
  review: { readonly method: string; readonly call: number },
  chat: ChatRequest,
  model: ChatModel | undefined,
  dependencies: FlowRunDependencies,
): Promise<void> {
  if (dependencies.beforeModelCall === undefined || model === undefined) return;
  await dependencies.beforeModelCall(review.method, {
    taskId: review.method,
    attempt: review.call,
    agent: '',
    model: model.id,
    attemptUsage: emptyUsage,
    estimate: () => estimateCall(chat, model.id, dependencies.prices),
  });
}

/** The model a review's free-text feedback is classified with: `human_feedback.llm`, resolved lazily. */
function reviewModel(method: FlowMethodDefinition, dependencies: FlowRunDependencies) {
  const llm = method.humanFeedback?.llm;
  if (llm == null || method.humanFeedback?.emit === undefined) return undefined;
  const spec: ModelSpec | string = typeof llm === 'string' ? llm : { model: llm.model };
  return dependencies.models(spec);
}
