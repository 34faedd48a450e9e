import { describe, expect, it } from 'vitest';
import { extendedBudget, wouldPass } from './budget.ts';

const spent = { tokens: 900, costUsd: 0.9, unpricedRequests: 0 };

describe('budgets', () => {
  it('stops a call whose prompt would take the spend past the token limit', () => {
    expect(wouldPass({ tokens: 1000 }, spent, { tokens: 100, costUsd: undefined })).toBe(false);
    expect(wouldPass({ tokens: 1000 }, spent, { tokens: 101, costUsd: undefined })).toBe(true);
  });

  it('stops a call whose prompt would take the cost past the limit, when the model has a price', () => {
    expect(wouldPass({ costUsd: 1 }, spent, { tokens: 10, costUsd: 0.2 })).toBe(true);
    expect(wouldPass({ costUsd: 1 }, spent, { tokens: 10, costUsd: 0.05 })).toBe(false);
  });

  it('checks a call of a model without a known price against the token limit only', () => {
    expect(wouldPass({ costUsd: 0.5 }, spent, { tokens: 10_000, costUsd: undefined })).toBe(false);
  });

  it('adds the first amounts again for each approval', () => {
    expect(extendedBudget({ tokens: 1000, costUsd: 0.1 }, 2)).toEqual({ tokens: 3000, costUsd: 0.3 });
    expect(extendedBudget({ tokens: 1000 }, 0)).toEqual({ tokens: 1000 });
  });
});
