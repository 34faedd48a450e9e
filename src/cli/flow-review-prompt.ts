import type { Writable } from 'node:stream';
import { CrewdError } from '../domain/errors.ts';
import type { FlowDefinition } from '../flow/flow-definition.ts';
import type { LineSource } from './line-source.ts';

/** A paused flow method as the terminal shows it. */
export interface FlowReview {
  readonly method: string;
  /** The method's output as text. */
  readonly output: string;
  readonly message: string;
  /** 1 for the first review of this call of the method, more after each rejection. */
  readonly attempt: number;
}

/** What the reviewer answered: the feedback, and whether it rejects the output (a method without `emit` only). */
export interface FlowReviewAnswer {
  readonly feedback: string;
  readonly rejected: boolean;
}

/** A line starting with this rejects the output of a method without `emit`; what follows is the feedback. */
const rejectPrefix = /^reject\s*:\s*/i;

/**
 * Shows a paused method's output and asks for one line of feedback, as crewAI's console does. For a method with
 * `emit`, the line is the feedback as it is: an outcome's name routes to it, empty takes `default_outcome`, and
 * anything else is classified by the method's `llm`. For a method without `emit`, the line is approving feedback,
 * unless it starts with `reject:`: the method then runs again with the rest of the line as feedback.
 */
export async function askFlowReview(
  definition: FlowDefinition,
  review: FlowReview,
  lines: LineSource,
  output: Writable,
): Promise<FlowReviewAnswer> {
  const settings = definition.methods.get(review.method)?.humanFeedback;
  const emit = settings?.emit;
  const rule = '─'.repeat(60);
  const attempt = review.attempt > 1 ? ` (attempt ${review.attempt})` : '';
  output.write(
    `\n${review.method}${attempt} is waiting for your review:\n${rule}\n${review.output}\n${rule}\n${review.message}\n`,
  );
  if (emit !== undefined) {
    const fallback = settings?.defaultOutcome ?? emit[0];
    output.write(
      `Outcomes: ${emit.join(', ')} (empty feedback takes ${fallback ?? 'the default'}; other text is matched to one)\n`,
    );
  } else {
    output.write(
      `Your feedback approves the output; start it with "reject:" to have ${review.method} run again with it\n`,
    );
  }
  const line = await lines.ask('Your feedback: ');
  if (line === undefined)
    throw new CrewdError('CANCELLED', `No feedback was given for ${review.method}: the input ended`);
  const text = line.trim();
  if (emit === undefined && rejectPrefix.test(text))
    return { feedback: text.replace(rejectPrefix, '').trim(), rejected: true };
  return { feedback: text, rejected: false };
}
