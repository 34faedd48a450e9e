import { describe, expect, it } from 'vitest';
import { heapGrowthFlag } from './heap-growth.ts';

describe('heapGrowthFlag', () => {
  it('limits heap growth to 25% by default', () => {
    expect(heapGrowthFlag(['--enable-source-maps'])).toBe('--heap-growing-percent=25');
  });

  it("leaves the operator's own setting alone, in either spelling", () => {
    expect(heapGrowthFlag(['--heap-growing-percent=60'])).toBeUndefined();
    expect(heapGrowthFlag(['--heap_growing_percent', '60'])).toBeUndefined();
  });
});
