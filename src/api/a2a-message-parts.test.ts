import type { Message, Part } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { describe, expect, it } from 'vitest';
import { inputsOf, reviewAnswerOf } from './a2a-message-parts.ts';

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const data = (value: Record<string, unknown>): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

function message(...parts: Part[]): Message {
  return {
    messageId: 'm',
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

describe('inputsOf', () => {
  it('takes inputs from data parts, later parts winning', () => {
    expect(inputsOf(message(data({ topic: 'AI', year: 1 }), data({ year: 2 })), ['topic', 'year'])).toEqual({
      topic: 'AI',
      year: 2,
    });
  });

  it('takes the text as the input of a crew with exactly one', () => {
    expect(inputsOf(message(text('  kettles ')), ['topic'])).toEqual({ topic: 'kettles' });
    expect(inputsOf(message(text('kettles'), data({ topic: 'lamps' })), ['topic'])).toEqual({
      topic: 'lamps',
    });
  });

  it('leaves the text out for a crew with several inputs, so the missing ones are named', () => {
    expect(inputsOf(message(text('kettles')), ['topic', 'year'])).toEqual({});
  });

  it('refuses inputs over the size limit', () => {
    expect(() => inputsOf(message(data({ topic: 'x'.repeat(300 * 1024) })), ['topic'])).toThrow(
      RequestMalformedError,
    );
  });
});

describe('reviewAnswerOf', () => {
  it('approves with the text "approve" alone', () => {
    expect(reviewAnswerOf(message(text('Approve'))), 'any case').toEqual({ approve: true, feedback: '' });
    expect(reviewAnswerOf(message(text('approved.')))).toEqual({ approve: true, feedback: '' });
  });

  it('rejects with any other text as the feedback', () => {
    expect(reviewAnswerOf(message(text('Approve, but add sources')))).toEqual({
      approve: false,
      feedback: 'Approve, but add sources',
    });
  });

  it('takes a data part as /resume takes its body, camelCase too', () => {
    expect(reviewAnswerOf(message(data({ is_approve: true, human_feedback: 'Fine' })))).toEqual({
      approve: true,
      feedback: 'Fine',
    });
    expect(reviewAnswerOf(message(data({ isApprove: false, humanFeedback: 'Redo' })))).toEqual({
      approve: false,
      feedback: 'Redo',
    });
  });

  it('refuses an empty answer and a malformed data part', () => {
    expect(() => reviewAnswerOf(message())).toThrow(RequestMalformedError);
    expect(() => reviewAnswerOf(message(data({ is_approve: 'yes' })))).toThrow(RequestMalformedError);
  });
});
