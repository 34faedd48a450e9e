import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, spawnCrewd, tempDatabase } from '../support/crewd.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

let model: FakeOpenAIServer;
let receiver: WebhookReceiver;
let receiverUp = false;

beforeAll(async () => {
  model = await startFakeOpenAI();
  receiver = await startWebhookReceiver({ status: () => (receiverUp ? 200 : 503) });
});

afterAll(async () => {
  await receiver.close();
  await model.close();
});

describe('webhook delivery across a crash', () => {
  it('delivers every pending webhook after the server is killed and restarted', async () => {
    const database = tempDatabase();
    const options = {
      crewDir: join(crewsDir, 'plain-crew'),
      database,
      modelUrl: model.url,
      env: {
        CREWD_WEBHOOK_RETRY_SCHEDULE:
          '0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2',
      },
    };
    const first = await spawnCrewd(options);
    const kickoff = await apiClient(first.url).post('/kickoff', {
      inputs: { topic: 'storms' },
      taskWebhookUrl: `${receiver.url}/task`,
      crewWebhookUrl: `${receiver.url}/crew`,
    });
    await apiClient(first.url).waitForState(kickoff.body.kickoff_id, ['SUCCESS']);
    // Wait until the down receiver has refused at least one attempt of the crew webhook, then crash.
    const deadline = Date.now() + 10_000;
    while (!receiver.received.some((webhook) => webhook.path === '/crew') && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 20));
    }
    first.child.kill('SIGKILL');
    await first.exited;
    const refusedIds = new Set(receiver.received.map((webhook) => webhook.headers['webhook-id']));

    receiverUp = true;
    const second = await spawnCrewd(options);
    try {
      const tasks = await receiver.waitFor('/task', 3, 30_000);
      const [crew] = await receiver.waitFor('/crew', 1, 30_000);
      expect(tasks.map((webhook) => webhook.body.task_id)).toEqual(['outline', 'note', 'summary']);
      expect(crew!.body).toMatchObject({ kickoff_id: kickoff.body.kickoff_id, state: 'SUCCESS' });
      // The messages that arrive are the same messages that were refused before the crash.
      expect(refusedIds.has(crew!.headers['webhook-id'])).toBe(true);

      const deliveries = await apiClient(second.url).get(`/executions/${kickoff.body.kickoff_id}/deliveries`);
      const crewDelivery = deliveries.body.deliveries ?? deliveries.body;
      expect(JSON.stringify(crewDelivery)).toContain('delivered');
    } finally {
      second.child.kill('SIGKILL');
      await second.exited;
    }
  });
});
