import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { newProcessId } from './process-identity.ts';

describe('process identity', () => {
  it('names this host and process, differently at every start', () => {
    const name = newProcessId();
    expect(name.startsWith(`${hostname()}/${process.pid}/`)).toBe(true);
    expect(newProcessId()).not.toBe(name);
  });
});
