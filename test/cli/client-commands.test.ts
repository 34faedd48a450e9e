import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd, testToken } from '../support/crewd.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { until } from '../support/until.ts';
import { runCrewd } from './crewd-command.ts';

let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
let crewd: RunningServer;
let client: { env: Record<string, string> };

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  receiver = await startScriptedReceiver();
  crewd = await startCrewd({ crewDir: join(crewsDir, 'review-crew'), modelUrl: model.url });
  client = { env: { CREWD_URL: crewd.url, CREWD_TOKEN: testToken } };
});

afterAll(async () => {
  await crewd.close();
  await receiver.close();
  await model.close();
});

const inputs = JSON.stringify({ product: 'tents', audience: 'campers' });

// Each test runs several crewd processes; the bound is generous for a busy machine.
describe('the client commands', { timeout: 120_000 }, () => {
  it('kickoff --wait prints the output under review, pending lists it, resume --wait prints the result', async () => {
    const kickoff = await runCrewd(['kickoff', '--inputs', inputs, '--wait'], client);
    expect(kickoff.code).toBe(0);
    const id = /Started (\S+)/.exec(kickoff.stderr)![1]!;
    const paused = (await apiClient(crewd.url).get(`/status/${id}`)).body;
    expect(paused.state).toBe('PAUSED');
    expect(kickoff.stdout).toBe(`${paused.pending_human_input.output}\n`);
    expect(kickoff.stderr).toContain(
      `draft is waiting for review; answer with: crewd resume ${id} --task draft`,
    );

    const pending = await runCrewd(['pending'], client);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toMatch(new RegExp(`^${id}  PAUSED +\\S+  waiting on draft$`, 'm'));

    const resume = await runCrewd(
      ['resume', id, '--task', 'draft', '--approve', '--task-webhook', `${receiver.url}/task`, '--wait'],
      client,
    );
    expect(resume.code).toBe(0);
    const done = (await apiClient(crewd.url).get(`/status/${id}`)).body;
    expect(done.state).toBe('SUCCESS');
    expect(resume.stdout).toBe(`${done.result}\n`);
    // The task URL given on resume receives the next leg's task.
    const [task] = await receiver.waitFor('/task', 1);
    expect(task!.body).toMatchObject({ kickoff_id: id, task_id: 'publish' });

    const listed = await runCrewd(['list', '--state', 'success', '--json'], client);
    expect(JSON.parse(listed.stdout).items.map((item: { kickoff_id: string }) => item.kickoff_id)).toContain(
      id,
    );
  });

  it('cancel revokes an execution and list shows it; a wrong state is refused', async () => {
    const kickoff = await runCrewd(['kickoff', '--inputs', inputs], client);
    const id = JSON.parse(kickoff.stdout).kickoff_id as string;

    const cancel = await runCrewd(['cancel', id], client);
    expect(cancel.code).toBe(0);
    expect(JSON.parse(cancel.stdout)).toMatchObject({ kickoff_id: id, state: 'REVOKED' });

    const list = await runCrewd(['list', '--state', 'REVOKED'], client);
    expect(list.stdout).toMatch(new RegExp(`^${id}  REVOKED`, 'm'));
    const wrong = await runCrewd(['list', '--state', 'done'], client);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      'crewd: --state must be one of PENDING, RUNNING, PAUSED, SUCCESS, FAILED, REVOKED\n',
    );
    const unknown = await runCrewd(['cancel', 'no-such-id'], client);
    expect(unknown.stderr).toMatch(/^crewd: .*\(HTTP 404\)\n$/);
  });

  it("resume --same-webhooks repeats the kickoff's webhooks, but never one whose credentials the server keeps", async () => {
    const port = new URL(receiver.url).port;
    const kickoff = await apiClient(crewd.url).post('/kickoff', {
      inputs: JSON.parse(inputs),
      taskWebhookUrl: `${receiver.url}/same/task`,
      stepWebhookUrl: `${receiver.url}/same/step?access_token=step-secret`,
      crewWebhookUrl: `http://hook:secret-password@127.0.0.1:${port}/same/crew`,
      webhooks: { url: `${receiver.url}/same/stream`, realtime: true, events: ['task_completed'] },
    });
    const id = kickoff.body.kickoff_id as string;
    await apiClient(crewd.url).waitForState(id, ['PAUSED']);

    const resume = await runCrewd(
      ['resume', id, '--task', 'draft', '--approve', '--same-webhooks', '--wait'],
      client,
    );
    expect(resume.code).toBe(0);
    expect(resume.stderr).toContain(
      'warning: the crew webhook (pass --crew-webhook) carries credentials the server does not show, so it is not repeated',
    );
    expect(resume.stderr).toContain(
      'warning: the step webhook (pass --step-webhook) carries credentials the server does not show, so it is not repeated',
    );
    // The second leg notifies the repeated task URL and event stream: the publish task reaches both.
    const tasks = await receiver.waitFor('/same/task', 3);
    expect(tasks.map((request) => request.body.task_id)).toEqual(['gather', 'draft', 'publish']);
    await until(() =>
      receiver.on('/same/stream').some((request) => request.body.events[0].data.task_name === 'publish'),
    );
    const detail = (await apiClient(crewd.url).get(`/executions/${id}`)).body;
    expect(detail.webhooks).toEqual({
      taskWebhookUrl: `${receiver.url}/same/task`,
      stepWebhookUrl: null,
      crewWebhookUrl: null,
      webhooks: {
        url: `${receiver.url}/same/stream`,
        events: ['task_completed'],
        realtime: true,
        authentication: null,
      },
      withheld: [],
    });
  });
});
