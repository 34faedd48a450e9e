import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldName, requestValidationError } from './request-validation.ts';

function firstMessage(schema: z.ZodType, data: unknown, part = 'body'): string {
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) throw new Error('expected a failure');
  return requestValidationError(result.error.issues, part).message;
}

describe('request validation messages', () => {
  it('spells field paths the way clients write them', () => {
    expect(fieldName(['humanInputWebhook', 'authentication', 'token'])).toBe(
      'humanInputWebhook.authentication.token',
    );
    expect(fieldName(['items', 2, 'name'])).toBe('items[2].name');
    expect(fieldName([])).toBe('');
  });

  it('tells a missing field from a wrong one', () => {
    const schema = z.object({ is_approve: z.boolean() });

    expect(firstMessage(schema, {})).toBe('is_approve is required');
    expect(firstMessage(schema, { is_approve: 'true' })).toBe('is_approve must be a boolean');
    expect(firstMessage(schema, null)).toBe('Request body must be an object');
  });

  it('names the allowed values of enums and bounds of numbers', () => {
    expect(firstMessage(z.object({ state: z.enum(['A', 'B']) }), { state: 'C' }, 'querystring')).toBe(
      'state must be one of A, B',
    );
    expect(firstMessage(z.object({ limit: z.number().max(100) }), { limit: 101 })).toBe(
      'limit must be at most 100',
    );
    expect(firstMessage(z.object({ id: z.string().min(1) }), { id: '' })).toBe('id must not be empty');
  });

  it('never puts the rejected value in the message or details', () => {
    const result = z
      .object({ token: z.number() })
      .safeParse({ token: 'secret-value' }, { reportInput: true });
    const error = requestValidationError(result.error!.issues, 'body');

    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('secret-value');
    expect(error.details).toEqual({ fields: [{ field: 'token', message: 'token must be a number' }] });
  });
});
