import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './time-ordered-id.ts';

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedId', () => {
  it('is a UUIDv7 whose first 48 bits are the millisecond it was made', () => {
    const id = timeOrderedId(Date.UTC(2030, 0, 1));

    expect(id).toMatch(uuidV7);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(Date.UTC(2030, 0, 1));
  });

  it('sorts in the order of the milliseconds, and differs within one', () => {
    const ids = [1, 2, 0x1_0000_0000, 0x1_0000_0001].map((ms) => timeOrderedId(ms));
    const same = Array.from({ length: 1000 }, () => timeOrderedId(5));

    expect([...ids].sort()).toEqual(ids);
    expect(new Set(same).size).toBe(1000);
    expect(same.every((id) => uuidV7.test(id))).toBe(true);
  });
});
