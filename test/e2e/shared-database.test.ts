import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, withServersSharingDatabase } from '../support/crewd.ts';

let model: FakeOpenAIServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'Prepared.' }) });
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
});
