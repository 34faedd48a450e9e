import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { unavailableLogIntervalMs } from '../../src/api/unavailable-log.ts';
import { startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';

let api: ApiHarness | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('logging during an outage', () => {
  it('logs the 503s of a dependency that is down once per interval, without stacks, counting the rest', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    let now = new Date('2025-01-01T10:00:00.000Z').getTime();
    api = await startApi({
      logger: pino({ level: 'info' }, sink),
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
});
