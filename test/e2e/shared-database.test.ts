import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, withServersSharingDatabase } from '../support/crewd.ts';
import { until } from '../support/until.ts';

let model: FakeOpenAIServer;

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) => ({
      content: 'Prepared.',
      ...(JSON.stringify(request.body).includes('the slow lease') ? { delayMs: 30_000 } : {}),
    }),
  });
});

afterAll(() => model.close());

describe('two servers sharing one database', () => {
  it('answers /status with what the other server committed, right after it answered', async () => {
    const crewDir = join(crewsDir, 'sign-off-crew');
    await withServersSharingDatabase({ crewDir, modelUrl: model.url }, async (first, second) => {
      const firstApi = apiClient(first.url);
      const secondApi = apiClient(second.url);
      const kickoff = await firstApi.post('/kickoff', { inputs: { document: 'the lease' } });
      const id = kickoff.body.kickoff_id as string;
      // The second server reads the paused execution a few times, as a polling client would.
      await secondApi.waitForState(id, ['PAUSED']);
      expect((await secondApi.get(`/status/${id}`)).body).toMatchObject({ state: 'PAUSED' });

      const resumed = await firstApi.post('/resume', {
        execution_id: id,
        task_id: 'prepare',
        human_feedback: 'Good.',
        is_approve: true,
      });
      expect(resumed.body).toMatchObject({ status: 'completed' });

      const status = await secondApi.get(`/status/${id}`);
      expect(status.body).toMatchObject({ state: 'SUCCESS', result: 'Prepared.', pending_human_input: null });
    });
  });

  it('stops the model call in flight on one server when the execution is cancelled through the other', async () => {
    const crewDir = join(crewsDir, 'sign-off-crew');
    const env = { CREWD_EXECUTION_LEASE_MS: '900' };
    await withServersSharingDatabase({ crewDir, modelUrl: model.url, env }, async (first, second) => {
      const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { document: 'the slow lease' } });
      const id = kickoff.body.kickoff_id as string;
      await until(() => JSON.stringify(model.requests).includes('the slow lease'));

      const cancelled = await apiClient(second.url).post(`/cancel/${id}`, {});
      expect(cancelled.body).toMatchObject({ state: 'REVOKED' });

      // The first learns of it at its next lease renewal (a third of the lease) and drops the call.
      await until(() =>
        model.abandoned.some((request) => JSON.stringify(request.body).includes('the slow lease')),
      );
      expect((await apiClient(first.url).get(`/status/${id}`)).body).toMatchObject({ state: 'REVOKED' });
    });
  });
});
