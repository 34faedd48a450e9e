import type { EngineEvent } from '../domain/events.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';
import { addUsage, emptyUsage } from '../domain/usage.ts';
import type { TokenUsage } from '../domain/usage.ts';
import { runCrew } from '../engine/crew-process.ts';
import type { Checkpoint, RunCrewRequest } from '../engine/run-request.ts';
import { createRateLimiter } from '../engine/rate-limiter.ts';

/** A person's answer on a human-input task. */
export interface Review {
  readonly approved: boolean;
  /** May be empty. */
  readonly feedback: string;
}

export type Reviewer = (output: TaskOutput) => Promise<Review>;

export interface RunToCompletionRequest extends Omit<RunCrewRequest, 'checkpoint'> {
  /** Asked at every human-input pause. */
  readonly review: Reviewer;
}

export interface CompletedRun {
  readonly outputs: readonly TaskOutput[];
  readonly usage: TokenUsage;
}

/**
 * Runs a crew in memory from start to finish, asking `review` at each pause and continuing from a checkpoint
 * the way the service does: every finished task and every approved output is accepted, and every answer joins
 * the feedback.
 */
export async function runToCompletion(request: RunToCompletionRequest): Promise<CompletedRun> {
  const { review, onEvent, ...runRequest } = request;
  let checkpoint: Checkpoint = { outputs: [], feedback: [] };
  let usage = emptyUsage;
  // One for the whole run, so max_rpm spacing holds across each review.
  const limiter = createRateLimiter();
  const accept = (output: TaskOutput): void => {
    checkpoint = { ...checkpoint, outputs: [...checkpoint.outputs, output] };
  };
  const record = async (event: EngineEvent): Promise<void> => {
    if (event.type === 'task-end' && !event.awaitingHumanInput) accept(event.output);
    await onEvent(event);
  };
  for (;;) {
    const outcome = await runCrew({ ...runRequest, onEvent: record, checkpoint, limiter });
    usage = addUsage(usage, outcome.usage);
    if (outcome.kind === 'completed') return { outputs: outcome.outputs, usage };
    const { output } = outcome;
    const answer = await review(output);
    const feedback: HumanFeedback = {
      taskId: output.taskId,
      attempt: output.attempt,
      text: answer.feedback,
      approved: answer.approved,
      output: output.output,
    };
    if (answer.approved) accept(output);
    checkpoint = { ...checkpoint, feedback: [...checkpoint.feedback, feedback] };
  }
}

/**
 * Runs a crew offline with one model for every agent, giving `reviews` in order and approving every review past
 * them: how a replay file is recorded for a starter or example crew.
 */
export function runApprovingAll(request: {
  readonly executionId: string;
  readonly crew: RunCrewRequest['crew'];
  readonly inputs: RunCrewRequest['inputs'];
  readonly model: ReturnType<RunCrewRequest['models']>;
  readonly tools: RunCrewRequest['tools'];
  readonly reviews?: readonly Review[];
}): Promise<CompletedRun> {
  const reviews = [...(request.reviews ?? [])];
  return runToCompletion({
    executionId: request.executionId,
    crew: request.crew,
    inputs: request.inputs,
    models: () => request.model,
    tools: request.tools,
    defaultModel: undefined,
    signal: new AbortController().signal,
    onEvent: () => undefined,
    review: () => Promise.resolve(reviews.shift() ?? { approved: true, feedback: '' }),
  });
}
