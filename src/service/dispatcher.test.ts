import { describe, expect, it } from 'vitest';
import { createLocalDispatcher } from './dispatcher.ts';

/** Runs that end when the test says so. */
function controlledRuns() {
  const ends = new Map<string, () => void>();
  return {
    run: (id: string) => new Promise<void>((done) => ends.set(id, done)),
    end: (id: string) => ends.get(id)?.(),
    started: () => [...ends.keys()],
  };
}

describe('local dispatcher', () => {
  it('counts running and queued executions against its concurrency', () => {
    const runs = controlledRuns();
    const dispatcher = createLocalDispatcher({ concurrency: 2, run: runs.run, onError: () => {} });
    expect(dispatcher.room()).toBe(2);
    dispatcher.submit('a');
    expect(dispatcher.room()).toBe(1);
    dispatcher.submit('b');
    dispatcher.submit('c');
    expect(runs.started()).toEqual(['a', 'b']);
    expect(dispatcher.room()).toBe(0);
  });

  it('tells of room once a run ends only when room was asked for and there was none', async () => {
    const runs = controlledRuns();
    let told = 0;
    const dispatcher = createLocalDispatcher({
      concurrency: 1,
      run: runs.run,
      onError: () => {},
      onRoom: () => (told += 1),
    });
    dispatcher.submit('a');
    runs.end('a');
    await new Promise<void>((done) => setImmediate(done));
    expect(told).toBe(0);

    dispatcher.submit('b');
    expect(dispatcher.room()).toBe(0);
    runs.end('b');
    await new Promise<void>((done) => setImmediate(done));
    expect(told).toBe(1);
  });
});
