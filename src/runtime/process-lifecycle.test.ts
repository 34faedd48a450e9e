import { describe, expect, it } from 'vitest';
import type { Lifecycle } from './lifecycle.ts';
import { ProcessLifecycle } from './process-lifecycle.ts';

/** A part that writes what happens to it into `log`. */
function part(
  name: string,
  log: string[],
  behaviour: { startFails?: Error; stopFails?: Error; takesWork?: boolean } = {},
): Lifecycle {
  return {
    name,
    start() {
      log.push(`start ${name}`);
      return behaviour.startFails === undefined ? Promise.resolve() : Promise.reject(behaviour.startFails);
    },
    ...(behaviour.takesWork === true ? { stopTakingWork: () => log.push(`stop taking work ${name}`) } : {}),
    stop() {
      log.push(`stop ${name}`);
      return behaviour.stopFails === undefined ? Promise.resolve() : Promise.reject(behaviour.stopFails);
    },
  };
}

function lifecycleLogging(stopErrors: string[] = []): ProcessLifecycle {
  return new ProcessLifecycle({
    onStopError: (name, error) => stopErrors.push(`${name}: ${(error as Error).message}`),
  });
}

describe('ProcessLifecycle', () => {
  it('starts parts in order and stops them in reverse order, each first stopping taking work', async () => {
    const log: string[] = [];
    const lifecycle = lifecycleLogging();

    await lifecycle.start(part('store', log));
    await lifecycle.start(part('listener', log, { takesWork: true }));
    await lifecycle.start(part('executions', log, { takesWork: true }));
    lifecycle.running();
    expect(lifecycle.state).toBe('running');
    await lifecycle.stop();

    expect(log).toEqual([
      'start store',
      'start listener',
      'start executions',
      'stop taking work executions',
      'stop taking work listener',
      'stop executions',
      'stop listener',
      'stop store',
    ]);
    expect(lifecycle.state).toBe('stopped');
  });

  it('stops the parts already started, newest first, when one fails to start, and passes on its error', async () => {
    const log: string[] = [];
    const lifecycle = lifecycleLogging();
    const refused = new Error('port in use');

    await lifecycle.start(part('store', log));
    await lifecycle.start(part('feed', log));
    const starting = lifecycle.start(part('listener', log, { startFails: refused }));

    await expect(starting).rejects.toBe(refused);
    expect(log).toEqual(['start store', 'start feed', 'start listener', 'stop feed', 'stop store']);
    expect(lifecycle.state).toBe('failed');
  });

  it('passes on the start error, not a stop error, and still stops every started part', async () => {
    const log: string[] = [];
    const stopErrors: string[] = [];
    const lifecycle = lifecycleLogging(stopErrors);
    const refused = new Error('cannot migrate');

    await lifecycle.start(part('tools', log, { stopFails: new Error('server gone') }));
    await lifecycle.start(part('tracing', log));
    await expect(lifecycle.start(part('store', log, { startFails: refused }))).rejects.toBe(refused);

    expect(log).toEqual(['start tools', 'start tracing', 'start store', 'stop tracing', 'stop tools']);
    expect(stopErrors).toEqual(['tools: server gone']);
  });

  it('undoes a start that failed between parts', async () => {
    const log: string[] = [];
    const lifecycle = lifecycleLogging();
    const wiring = new Error('token not registered');

    await lifecycle.start(part('tools', log));
    await lifecycle.start(part('store', log));

    await expect(lifecycle.fail(wiring)).rejects.toBe(wiring);
    expect(log).toEqual(['start tools', 'start store', 'stop store', 'stop tools']);
    await expect(lifecycle.start(part('listener', log))).rejects.toThrow(/failed/);
    expect(log).toHaveLength(4);
  });

  it('stops each part once however often it is stopped', async () => {
    const log: string[] = [];
    const lifecycle = lifecycleLogging();
    await lifecycle.start(part('store', log));
    await lifecycle.start(part('listener', log, { takesWork: true }));
    lifecycle.running();

    await Promise.all([lifecycle.stop(), lifecycle.stop()]);
    await lifecycle.stop();

    expect(log).toEqual([
      'start store',
      'start listener',
      'stop taking work listener',
      'stop listener',
      'stop store',
    ]);
  });

  it('stops every part when one fails to stop, then passes on the first failure', async () => {
    const log: string[] = [];
    const stopErrors: string[] = [];
    const lifecycle = lifecycleLogging(stopErrors);
    const stuck = new Error('worker stuck');
    await lifecycle.start(part('store', log, { stopFails: new Error('disk gone') }));
    await lifecycle.start(part('worker', log, { stopFails: stuck }));
    await lifecycle.start(part('executions', log));
    lifecycle.running();

    await expect(lifecycle.stop()).rejects.toBe(stuck);

    expect(log.slice(3)).toEqual(['stop executions', 'stop worker', 'stop store']);
    expect(stopErrors).toEqual(['store: disk gone']);
    expect(lifecycle.state).toBe('stopped');
  });

  it('gives what an opened resource resolved to, and closes it with that at stop', async () => {
    const closed: string[] = [];
    const lifecycle = lifecycleLogging();

    const connection = await lifecycle.open(
      'the store',
      () => Promise.resolve({ id: 'db-1' }),
      (opened) => {
        closed.push(opened.id);
        return Promise.resolve();
      },
    );
    await lifecycle.stop();

    expect(connection).toEqual({ id: 'db-1' });
    expect(closed).toEqual(['db-1']);
  });

  it("opens parts a few at a time, gives them in the items' order, and stops them newest item first", async () => {
    const log: string[] = [];
    const lifecycle = lifecycleLogging();
    const pending = new Map<string, (value: string) => void>();
    let cOpened!: () => void;
    const cOpening = new Promise<void>((resolve) => (cOpened = resolve));
    const opening = lifecycle.openEach<string, string>(['a', 'b', 'c'], 2, (name) => ({
      name,
      open: () => {
        log.push(`open ${name}`);
        if (name === 'c') cOpened();
        return new Promise<string>((resolve) => pending.set(name, resolve));
      },
      close: (value) => {
        log.push(`close ${value}`);
        return Promise.resolve();
      },
    }));

    expect(log).toEqual(['open a', 'open b']);
    pending.get('b')!('B');
    await cOpening;
    expect(log).toEqual(['open a', 'open b', 'open c']);
    pending.get('c')!('C');
    pending.get('a')!('A');
    expect(await opening).toEqual(['A', 'B', 'C']);
    await lifecycle.stop();
    expect(log.slice(3)).toEqual(['close C', 'close B', 'close A']);
  });

  it('opens no more once one fails, closes those opened, and passes on the first failure in order', async () => {
    const log: string[] = [];
    const stopErrors: string[] = [];
    const lifecycle = lifecycleLogging(stopErrors);
    await lifecycle.start(part('store', log));
    let finishB!: () => void;
    const opening = lifecycle.openEach<string, string>(['a', 'b', 'c', 'd'], 2, (name) => ({
      name,
      open: () => {
        log.push(`open ${name}`);
        if (name === 'a') return Promise.reject(new Error('a does not load'));
        return new Promise<string>((resolve) => (finishB = () => resolve(name)));
      },
      close: (value) => {
        log.push(`close ${value}`);
        return Promise.resolve();
      },
    }));
    const outcome = opening.catch((error: unknown) => error);
    finishB();

    expect(((await outcome) as Error).message).toBe('a does not load');
    expect(log).toEqual(['start store', 'open a', 'open b', 'close b', 'stop store']);
    expect(lifecycle.state).toBe('failed');
    expect(stopErrors).toEqual([]);
  });
});
