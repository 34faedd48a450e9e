import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Message } from '@a2a-js/sdk';
import { requestFieldLimits } from './request-schemas.ts';

/*
 * What an A2A message says to a crew. A new task's inputs come from its data parts (one JSON object of inputs), or
 * from its text when the crew has exactly one input. A message on a paused task answers the review: a data part
 * `{"is_approve": bool, "human_feedback": "…"}` as `/resume` takes it, or text: `approve` alone approves, any other
 * text rejects with that text as the feedback, so the task runs again.
 */

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dataOf(message: Message): Record<string, unknown>[] {
  return message.parts.flatMap((part) =>
    part.content?.$case === 'data' && isPlainObject(part.content.value) ? [part.content.value] : [],
  );
}

function textOf(message: Message): string {
  return message.parts
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n')
    .trim();
}

function bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** The kickoff inputs a message carries; the service names the ones still missing. */
export function inputsOf(message: Message, requiredInputs: readonly string[]): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const data of dataOf(message)) Object.assign(inputs, data);
  const text = textOf(message);
  const [only] = requiredInputs;
  if (requiredInputs.length === 1 && only !== undefined && !(only in inputs) && text !== '')
    inputs[only] = text;
  if (bytes(inputs) > requestFieldLimits.inputsBytes) {
    throw new RequestMalformedError(`Inputs exceed ${requestFieldLimits.inputsBytes / 1024} KiB`);
  }
  return inputs;
}

export interface ReviewAnswer {
  readonly approve: boolean;
  readonly feedback: string;
}

/** The answer to a pending review that a message on the paused task gives. */
export function reviewAnswerOf(message: Message): ReviewAnswer {
  const data = dataOf(message).find((value) => 'is_approve' in value || 'isApprove' in value);
  let answer: ReviewAnswer;
  if (data !== undefined) {
    const approve = data.is_approve ?? data.isApprove;
    const feedback = data.human_feedback ?? data.humanFeedback ?? '';
    if (typeof approve !== 'boolean' || typeof feedback !== 'string') {
      throw new RequestMalformedError('is_approve must be a boolean and human_feedback a string');
    }
    answer = { approve, feedback };
  } else {
    const text = textOf(message);
    if (text === '') {
      throw new RequestMalformedError(
        'A review is answered with the text "approve", with feedback text (reject), or with a data part {"is_approve", "human_feedback"}',
      );
    }
    answer = /^approved?\.?$/i.test(text)
      ? { approve: true, feedback: '' }
      : { approve: false, feedback: text };
  }
  if (Buffer.byteLength(answer.feedback) > requestFieldLimits.feedbackBytes) {
    throw new RequestMalformedError(`human_feedback exceeds ${requestFieldLimits.feedbackBytes / 1024} KiB`);
  }
  return answer;
}
