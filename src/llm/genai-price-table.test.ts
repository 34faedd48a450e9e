import { describe, expect, it } from 'vitest';
import { createGenaiPriceTable } from './genai-price-table.ts';

describe('the bundled price table', () => {
  const prices = createGenaiPriceTable();

  it('prices a known model by its provider, input and output tokens apart', () => {
    const input = prices.costUsd('openai/gpt-4o', { input: 1_000_000, output: 0 });
    const output = prices.costUsd('openai/gpt-4o', { input: 0, output: 1_000_000 });

    expect(input).toBeGreaterThan(0);
    expect(output).toBeGreaterThan(input!);
    expect(prices.costUsd('openai/gpt-4o', { input: 1_000_000, output: 1_000_000 })).toBeCloseTo(
      input! + output!,
      9,
    );
  });

  it("knows crewd's provider names where the table names them otherwise", () => {
    expect(prices.costUsd('gemini/gemini-2.5-flash', { input: 1000, output: 1000 })).toBeGreaterThan(0);
  });

  it('prices a model with tiers at the price of the tier the call falls in', () => {
    const small = prices.costUsd('gemini/gemini-2.5-pro', { input: 100_000, output: 0 })!;
    const large = prices.costUsd('gemini/gemini-2.5-pro', { input: 300_000, output: 0 })!;

    expect(large / 300_000).toBeGreaterThan(small / 100_000);
  });

  it('has no price for a model it does not know, or a provider it does not know', () => {
    expect(prices.costUsd('openai/test-model', { input: 1000, output: 10 })).toBeUndefined();
    expect(prices.costUsd('my-local-server/gpt-4o', { input: 1000, output: 10 })).toBeUndefined();
  });
});
