import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { unavailableLogIntervalMs } from '../../src/api/unavailable-log.ts';
import type { Caller } from '../../src/service/execution-service.ts';
import type { StoredExecutionEvent } from '../../src/store/store.ts';
import { StoreUnavailableError } from '../../src/store/store-unavailable.ts';
import { startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { makeExecution } from './support/example-crew.ts';
import { InMemoryExecutionService } from './support/in-memory-execution-service.ts';
import { SseReader } from './support/sse-reader.ts';

let api: ApiHarness | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A logger whose lines are kept, parsed, in `lines`. */
function collectedLog(): { logger: ReturnType<typeof pino>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

/** Event streams that fail as the store goes down, after their headers went out. */
class StreamsDuringAnOutage extends InMemoryExecutionService {
  override async openEventStream(
    executionId: string,
    caller: Caller,
    afterSequence: number,
    signal: AbortSignal,
  ): Promise<AsyncIterable<StoredExecutionEvent>> {
    await super.openEventStream(executionId, caller, afterSequence, signal);
    const outage = new StoreUnavailableError('unreachable', new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(outage) }) };
  }
}

describe('logging during an outage', () => {
  it('logs the 503s of a dependency that is down once per interval, without stacks, counting the rest', async () => {
    const { logger, lines } = collectedLog();
    let now = new Date('2025-01-01T10:00:00.000Z').getTime();
    api = await startApi({
      logger,
      clock: () => new Date(now),
      authenticate: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
    });

    for (let index = 0; index < 25; index += 1) {
      const response = await api.request('/inputs');
      expect(response.status).toBe(503);
      expect(JSON.stringify(await response.json())).not.toContain('ECONNREFUSED');
    }
    now += unavailableLogIntervalMs;
    expect((await api.request('/inputs')).status).toBe(503);

    const outage = lines.filter((line) => line.msg === 'answered 503: a dependency is unavailable');
    expect(outage.map((line) => line.leftOut)).toEqual([0, 24]);
    expect(outage[0]?.reason).toBe('Token store unavailable: connect ECONNREFUSED 127.0.0.1:5432');
    // Nothing else was logged for these 26 requests (the one other line says the server listens).
    expect(lines.filter((line) => line.level !== 30)).toEqual(outage);
    expect(JSON.stringify(lines)).not.toContain('stack');
  });

  it('sums up event streams ended by the outage in the same lines, and tells each client why', async () => {
    const { logger, lines } = collectedLog();
    const service = new StreamsDuringAnOutage();
    service.put(makeExecution({ id: 'streamed', state: 'RUNNING' }));
    api = await startApi({ logger, service });

    for (let index = 0; index < 5; index += 1) {
      const response = await api.request('/executions/streamed/events');
      const reader = new SseReader(response);
      const blocks = [];
      for (let block = await reader.next(); block !== null; block = await reader.next())
        if (block.comment === undefined) blocks.push(block);
      expect(blocks).toEqual([
        {
          event: 'error',
          data: JSON.stringify({
            error: 'Service Unavailable',
            message: 'The database cannot be reached; try again later',
            code: 'DEPENDENCY_UNAVAILABLE',
          }),
        },
      ]);
    }

    const outage = lines.filter((line) => line.msg === 'answered 503: a dependency is unavailable');
    expect(outage).toHaveLength(1);
    expect(outage[0]).toMatchObject({ route: '/executions/:id/events', leftOut: 0 });
    expect(lines.filter((line) => line.msg === 'event stream failed')).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('stack');
  });
});
