import { describe, expect, it } from 'vitest';
import { eventDataJson } from './event-data-json.ts';

describe('eventDataJson', () => {
  it('is the data as JSON.stringify writes it', () => {
    const data = { task_id: 'review', output: 'two\nlines', usage: { total_tokens: 3 } };
    expect(eventDataJson(data)).toBe(JSON.stringify(data));
    expect(eventDataJson(null)).toBe('null');
    expect(eventDataJson('text')).toBe('"text"');
  });

  it('encodes the same data object once, however many times it is written', () => {
    let encodings = 0;
    const data = {
      task_id: 'a',
      toJSON() {
        encodings += 1;
        return { task_id: this.task_id };
      },
    };

    const first = eventDataJson(data);
    const second = eventDataJson(data);

    expect(second).toBe(first);
    expect(first).toBe('{"task_id":"a"}');
    expect(encodings).toBe(1);
    // Equal data in another object is its own entry.
    expect(eventDataJson({ task_id: 'a' })).toBe('{"task_id":"a"}');
  });
});
