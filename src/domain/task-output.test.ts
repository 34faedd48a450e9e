import { describe, expect, it } from 'vitest';
import { summarize } from './task-output.ts';

describe('summarize', () => {
  it('keeps a short output whole, spaces evened out', () => {
    expect(summarize('  Tides rise\n and fall. ')).toBe('Tides rise and fall.');
  });

  it('takes the first ten words of a longer one', () => {
    expect(summarize('one two three four five six seven eight nine ten eleven')).toBe(
      'one two three four five six seven eight nine ten...',
    );
  });

  it('takes at most 200 characters, however long the words', () => {
    expect(summarize('a'.repeat(3_000_000))).toBe(`${'a'.repeat(200)}...`);
    expect(summarize(`${'b'.repeat(150)} ${'c'.repeat(150)}`)).toBe(
      `${'b'.repeat(150)} ${'c'.repeat(49)}...`,
    );
  });
});
