import { describe, expect, it } from 'vitest';
import { formatEvent, resumePoint } from './server-sent-events.ts';

describe('resumePoint', () => {
  it('starts from the beginning without a header or parameter', () => {
    expect(resumePoint(undefined, undefined)).toBe(0);
    expect(resumePoint('', undefined)).toBe(0);
  });

  it('prefers the Last-Event-ID header to the query parameter', () => {
    expect(resumePoint('7', '3')).toBe(7);
    expect(resumePoint(undefined, '3')).toBe(3);
  });

  it.each(['-1', '1.5', 'abc', '99999999999999999999'])('refuses %s', (value) => {
    expect(() => resumePoint(value, undefined)).toThrow('Last-Event-ID must be a non-negative integer');
  });
});

describe('formatEvent', () => {
  it('writes the sequence as id, the type as event and the data as one JSON line', () => {
    const text = formatEvent({
      executionId: 'e',
      sequence: 12,
      type: 'human-input-request',
      data: { task_id: 'review', output: 'two\nlines', attempt: 1 },
      createdAt: new Date(),
    });

    expect(text).toBe(
      'id: 12\nevent: human-input-request\ndata: {"task_id":"review","output":"two\\nlines","attempt":1}\n\n',
    );
  });
});
