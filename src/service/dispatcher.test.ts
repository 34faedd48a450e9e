import { describe, expect, it } from 'vitest';
import type { Execution } from '../domain/execution.ts';
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

  it('counts reserved slots against its room until they are used or released', () => {
    const runs = controlledRuns();
    const dispatcher = createLocalDispatcher({ concurrency: 3, run: runs.run, onError: () => {} });
    const first = dispatcher.reserve(2);
    expect(first.size).toBe(2);
    // A reservation made meanwhile gets only what is left.
    expect(dispatcher.reserve(5).size).toBe(1);
    expect(dispatcher.room()).toBe(0);

    first.submit('a');
    expect(runs.started()).toEqual(['a']);
    expect(first.size).toBe(1);
    expect(dispatcher.room()).toBe(0);
    first.release();
    expect(dispatcher.room()).toBe(1);
    expect(dispatcher.inHand()).toEqual(['a']);
  });

  it('frees the slot of an execution submitted twice', () => {
    const runs = controlledRuns();
    const dispatcher = createLocalDispatcher({ concurrency: 2, run: runs.run, onError: () => {} });
    dispatcher.submit('a');
    const slot = dispatcher.reserve(1);
    slot.submit('a');
    expect(runs.started()).toEqual(['a']);
    expect(dispatcher.room()).toBe(1);
  });

  it('tells of room when a reservation that left none is released unused', () => {
    let told = 0;
    const dispatcher = createLocalDispatcher({
      concurrency: 1,
      run: controlledRuns().run,
      onError: () => {},
      onRoom: () => (told += 1),
    });
    const slot = dispatcher.reserve(1);
    expect(dispatcher.reserve(1).size).toBe(0);
    expect(told).toBe(0);
    slot.release();
    expect(told).toBe(1);
  });

  it('hands each run the committed copy its submit came with, also after waiting in the queue', async () => {
    const handed = new Map<string, Execution | undefined>();
    const ends: (() => void)[] = [];
    const dispatcher = createLocalDispatcher({
      concurrency: 1,
      run: (id, committed) => {
        handed.set(id, committed);
        return new Promise<void>((done) => ends.push(done));
      },
      onError: () => {},
    });
    const first = { id: 'a', revision: 0 } as Execution;
    const second = { id: 'b', revision: 2 } as Execution;
    dispatcher.reserve(1).submit('a', first);
    dispatcher.submit('b', second);
    dispatcher.submit('c');
    expect([...handed]).toEqual([['a', first]]);
    ends.shift()!();
    await new Promise<void>((done) => setImmediate(done));
    ends.shift()!();
    await new Promise<void>((done) => setImmediate(done));
    expect([...handed]).toEqual([
      ['a', first],
      ['b', second],
      ['c', undefined],
    ]);
  });
});
