import { describe, expect, it } from 'vitest';
import { clipText, clippedTextChars } from './clip-text.ts';

describe('clipText', () => {
  it('keeps a text up to the limit as it is', () => {
    const text = 'a'.repeat(clippedTextChars);
    expect(clipText(text)).toBe(text);
  });

  it('cuts a longer text and says how much was left out', () => {
    expect(clipText('abcdefghij', 4)).toBe('abcd… [clipped: 6 more characters]');
  });

  it('never splits a surrogate pair', () => {
    expect(clipText('abc😀def', 4)).toBe('abc… [clipped: 5 more characters]');
  });
});
