import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrewdClient, CrewdClientError } from '../../src/client/index.ts';
import type { CrewdClient, ExecutionEvent } from '../../src/client/index.ts';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { crewsDir, startCrewd, testToken } from '../support/crewd.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let client: CrewdClient;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  crewd = await startCrewd({ crewDir: join(crewsDir, 'review-crew'), modelUrl: model.url });
  client = createCrewdClient({ url: crewd.url, token: testToken });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

const inputs = { product: 'tents', audience: 'campers' };

/** Collects every event of an iteration. */
async function collect(events: AsyncIterable<ExecutionEvent>): Promise<ExecutionEvent[]> {
  const seen: ExecutionEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/**
 * A fetch whose first event stream breaks off after `events` events, as a dropped connection does; it records
 * the Last-Event-ID of every stream it opens.
 */
function droppingFetch(events: number) {
  const lastEventIds: (string | null)[] = [];
  let dropped = false;
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    if (headers.get('accept') !== 'text/event-stream') return response;
    lastEventIds.push(headers.get('last-event-id'));
    if (dropped || response.body === null) return response;
    dropped = true;
    let text = '';
    const decoder = new TextDecoder();
    const cut = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        text += decoder.decode(chunk, { stream: true });
        const blocks = text.split('\n\n');
        const complete = blocks.slice(0, -1).filter((block) => block.startsWith('id:'));
        if (complete.length < events) return;
        const end = text.indexOf(complete[events - 1]!) + complete[events - 1]!.length + 2;
        controller.enqueue(new TextEncoder().encode(text.slice(0, end)));
        controller.error(new Error('connection reset'));
      },
    });
    return new Response(response.body.pipeThrough(cut), {
      status: response.status,
      headers: response.headers,
    });
  };
  return { fetch: wrapped, lastEventIds };
}

describe('the crewd client against a running server', () => {
  it('kicks off, waits for the pause, resumes and waits for the result', async () => {
    expect(await client.inputs()).toEqual(['product', 'audience']);
    expect((await client.crew()).input_fields).toEqual([
      { name: 'product', required: true, type: 'string', description: null },
      { name: 'audience', required: true, type: 'string', description: null },
    ]);
    const { kickoff_id: id } = await client.kickoff({ inputs, meta: { ticket: 7 } });

    const paused = await client.wait(id);
    expect(paused).toMatchObject({
      kickoff_id: id,
      state: 'PAUSED',
      pending_human_input: { task_id: 'draft' },
    });

    const resumed = await client.resume({
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Good',
      is_approve: true,
    });
    expect(resumed.status).toBe('resumed');
    const progress: number[] = [];
    const done = await client.wait(id, { onEvent: (event) => progress.push(event.id) });
    expect(done).toMatchObject({ state: 'SUCCESS', result: expect.any(String), meta: { ticket: 7 } });
    // The wait follows the event log from its start, and stops as soon as the status is settled.
    expect(progress).toEqual(progress.map((_, index) => index + 1));

    const listed = await client.list({ state: 'SUCCESS', limit: 100 });
    expect(listed.items.map((item) => item.kickoff_id)).toContain(id);
    const deliveries = await client.deliveries(id);
    expect(deliveries.items).toEqual([]);
  });

  it('cancels an execution and lists it as REVOKED', async () => {
    const { kickoff_id: id } = await client.kickoff({ inputs });
    await client.wait(id);

    const cancelled = await client.cancel(id);

    expect(cancelled.state).toBe('REVOKED');
    const revoked = await client.list({ state: 'REVOKED' });
    expect(revoked.items.map((item) => item.kickoff_id)).toContain(id);
  });

  it("throws one error class carrying the contract's code, status and details", async () => {
    const missing = await client.kickoff({ inputs: { product: 'tents' } }).catch((error: unknown) => error);
    const unknown = await client.status('no-such-id').catch((error: unknown) => error);
    const unauthorized = await createCrewdClient({ url: crewd.url, token: 'wrong' })
      .inputs()
      .catch((error: unknown) => error);
    const unreachable = await createCrewdClient({ url: 'http://127.0.0.1:1', token: testToken })
      .inputs()
      .catch((error: unknown) => error);

    expect(missing).toBeInstanceOf(CrewdClientError);
    expect(missing).toMatchObject({ status: 422, details: { missing_inputs: ['audience'] } });
    expect(unknown).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(unauthorized).toMatchObject({ code: 'UNAUTHORIZED', status: 401, retryable: false });
    expect(unreachable).toMatchObject({ code: 'UNREACHABLE', status: null, retryable: true });
  });

  it('reopens a dropped event stream with Last-Event-ID, missing and repeating nothing', async () => {
    const { kickoff_id: id } = await client.kickoff({ inputs });
    await client.wait(id);
    await client.resume({ execution_id: id, task_id: 'draft', human_feedback: 'ok', is_approve: true });
    await client.wait(id);
    const straight = await collect(client.events(id));
    const dropping = droppingFetch(2);
    const reconnecting = createCrewdClient({ url: crewd.url, token: testToken, fetch: dropping.fetch });

    const events = await collect(reconnecting.events(id, { retryMs: 0 }));

    expect(dropping.lastEventIds).toEqual([null, '2']);
    expect(events).toEqual(straight);
    expect(events.map((event) => event.id)).toEqual(straight.map((_, index) => index + 1));
    expect(events.at(-1)!.type).toBe('execution-end');
    // Continuing after the end yields nothing more, and ends.
    expect(await collect(client.events(id, { lastEventId: events.at(-1)!.id }))).toEqual([]);
  });
});
