import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { hangAfterMs, until } from '../support/until.ts';
import { apiClient, crewsDir, spawnCrewd, tempDatabase } from '../support/crewd.ts';
import { startScriptedReceiver, type Answer, type ScriptedReceiver } from '../support/scripted-receiver.ts';

let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
let receiverUp = false;
const upOrDown: Answer = (response) => response.writeHead(receiverUp ? 200 : 503).end();

beforeAll(async () => {
  model = await startFakeOpenAI();
  receiver = await startScriptedReceiver();
  receiver.answer('/task', upOrDown);
  receiver.answer('/crew', upOrDown);
});

afterAll(async () => {
  await receiver.close();
  await model.close();
});

/** Waits for `count` requests at `path` among those received from index `since` on, when the receiver was up. */
async function acceptedSince(path: string, since: number, count: number) {
  const accepted = () => receiver.received.slice(since).filter((request) => request.path === path);
  await until(
    () => accepted().length >= count,
    hangAfterMs,
    () => `only ${accepted().length} of ${count} webhooks arrived at ${path}`,
  );
  return accepted();
}

describe('webhook delivery across a crash', () => {
  // A message whose attempt was in flight at the kill is sent again at once: the killed server's liveness lock died
  // with it, so its claim no longer holds.
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
    await until(() => receiver.received.some((webhook) => webhook.path === '/crew'));
    first.child.kill('SIGKILL');
    await first.exited;
    const refusedIds = new Set(receiver.received.map((webhook) => webhook.headers['webhook-id']));

    // Requests are answered as they are read, so every one read from here on is answered 200.
    const upAt = receiver.received.length;
    receiverUp = true;
    const second = await spawnCrewd(options);
    try {
      const tasks = await acceptedSince('/task', upAt, 3);
      const [crew] = await acceptedSince('/crew', upAt, 1);
      expect(tasks.map((webhook) => webhook.body.task_id)).toEqual(['outline', 'note', 'summary']);
      expect(crew!.body).toMatchObject({ kickoff_id: kickoff.body.kickoff_id, state: 'SUCCESS' });
      // The messages that arrive are the same messages that were refused before the crash.
      expect(refusedIds.has(crew!.headers['webhook-id'])).toBe(true);

      // The store says so too, once the second process has recorded the accepted attempt.
      const crewDelivery = async (): Promise<{
        status: string;
        attempts: { status_code: number | null }[];
      }> => {
        const deliveries = await apiClient(second.url).get(
          `/executions/${kickoff.body.kickoff_id}/deliveries`,
        );
        return (deliveries.body.items as { kind: string; status: string; attempts: [] }[]).find(
          (item) => item.kind === 'crew',
        )!;
      };
      await until(async () => (await crewDelivery()).status === 'delivered');
      // The refused attempt may not have been recorded before the kill; the accepted one is, last.
      expect((await crewDelivery()).attempts.at(-1)!.status_code).toBe(200);
    } finally {
      second.child.kill('SIGKILL');
      await second.exited;
    }
  }, 180_000);
});
