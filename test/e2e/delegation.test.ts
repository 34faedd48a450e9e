import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import {
  apiClient,
  crewsDir,
  spawnCrewd,
  startCrewd,
  tempDatabase,
  type CrewdProcess,
} from '../support/crewd.ts';
import {
  startScriptedReceiver,
  type ReceivedRequest,
  type ScriptedReceiver,
} from '../support/scripted-receiver.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
/** Holds the coworker's answer after its tool result until the test lets it go (never, for the first process). */
let afterTool: Promise<unknown> = new Promise(() => undefined);
const running: CrewdProcess[] = [];

type Message = { role: string; content?: unknown };
const messages = (request: RecordedRequest): Message[] =>
  (request.body?.messages as Message[] | undefined) ?? [];
const textOf = (content: unknown): string => (typeof content === 'string' ? content : '');
const toolResult = (request: RecordedRequest): string | undefined => {
  const content = messages(request).find((message) => message.role === 'tool')?.content;
  return typeof content === 'string' ? content : undefined;
};
const isManager = (request: RecordedRequest): boolean => request.body?.model === 'manager-model';
const chatRequests = (): RecordedRequest[] =>
  model.requests.filter((request) => request.path.endsWith('/chat/completions'));
const describeCall = (request: RecordedRequest): string =>
  `${isManager(request) ? 'manager' : 'coworker'}${toolResult(request) === undefined ? '' : ' after tool'}`;

beforeAll(async () => {
  receiver = await startScriptedReceiver();
  model = await startFakeOpenAI({
    respond: (request) => {
      const result = toolResult(request);
      const system = textOf(messages(request)[0]?.content);
      if (system.startsWith('You are Writer')) return { content: `Note ${chatRequests().length}` };
      if (isManager(request)) {
        const coworker =
          system.includes('Crew Manager') && JSON.stringify(request.body.tools).includes('Writer');
        if (coworker && result === undefined) {
          const prompt = textOf(messages(request)[1]?.content);
          return {
            toolCalls: [
              {
                name: 'Delegate_work_to_coworker',
                arguments: { task: prompt, context: '', coworker: 'Writer' },
              },
            ],
          };
        }
        return result === undefined
          ? {
              content: 'The traveller should do this.',
              toolCalls: [
                {
                  name: 'Delegate_work_to_coworker',
                  arguments: { task: 'Visit Porto and log it', context: 'A day trip', coworker: 'Traveller' },
                },
              ],
            }
          : { content: `Manager: ${result}` };
      }
      return result === undefined
        ? { toolCalls: [{ name: 'log_stop', arguments: { city: 'Porto' } }] }
        : { content: 'Porto is logged.', heldUntil: afterTool };
    },
  });
});

afterAll(async () => {
  for (const crewd of running) crewd.child.kill('SIGKILL');
  await Promise.all([model.close(), receiver.close()]);
});

function serveInProcess(crew: string) {
  return startCrewd({ crewDir: userCrew(join(crewsDir, crew)), modelUrl: model.url });
}

const managedCrew = userCrew(join(crewsDir, 'managed-crew'));

async function serve(database: string, stopLog: string): Promise<CrewdProcess> {
  const crewd = await spawnCrewd({
    crewDir: managedCrew,
    database,
    modelUrl: model.url,
    // A killed process cannot release its execution: the next one continues it once the lease runs out.
    env: { CREWD_EXECUTION_LEASE_MS: '1000', STOP_LOG: stopLog },
  });
  running.push(crewd);
  return crewd;
}

describe('a hierarchical crew served by crewd', () => {
  it('shows the coworker at work, and after a SIGKILL in its work goes on without repeating a completed step', async () => {
    const database = tempDatabase();
    const stopLog = join(mkdtempSync(join(tmpdir(), 'crewd-stops-')), 'stops.log');
    const first = await serve(database, stopLog);
    const kickoff = await apiClient(first.url).post('/kickoff', {
      inputs: { city: 'Porto' },
      stepWebhookUrl: `${receiver.url}/steps`,
      taskWebhookUrl: `${receiver.url}/tasks`,
    });
    const id = kickoff.body.kickoff_id as string;

    // The coworker has logged the stop and asked the model to go on: it is the one at work.
    await until(() => chatRequests().some((request) => describeCall(request) === 'coworker after tool'));
    const working = await apiClient(first.url).get(`/status/${id}`);
    expect(working.body.progress).toMatchObject({ current: 'trip', current_agent: 'Traveller' });
    expect(working.body.last_step).toMatchObject({ agent: 'Traveller', tool: 'log_stop' });
    const [toolStep] = await receiver.waitFor('/steps', 1);
    expect(toolStep!.body).toMatchObject({ task_id: 'trip', agent: 'Traveller', tool: 'log_stop' });

    first.child.kill('SIGKILL');
    await first.exited;
    const askedBefore = chatRequests().length;
    afterTool = Promise.resolve();
    const second = await serve(database, stopLog);
    const done = await apiClient(second.url).waitForState(id, ['SUCCESS', 'FAILED']);

    expect(done.body).toMatchObject({ state: 'SUCCESS', result: 'Manager: Porto is logged.' });
    // The tool ran once across both processes, and only the calls that had not completed are made again.
    expect(readFileSync(stopLog, 'utf8')).toBe('Porto\n');
    expect(chatRequests().slice(askedBefore).map(describeCall)).toEqual([
      'coworker after tool',
      'manager after tool',
    ]);
    expect(chatRequests().map(describeCall)).toEqual([
      'manager',
      'coworker',
      'coworker after tool',
      'coworker after tool',
      'manager after tool',
    ]);
    // Delivery is at least once: a webhook the killed process sent but had not marked is sent again, same id.
    const distinctSteps = (): ReceivedRequest[] => [
      ...new Map(receiver.on('/steps').map((request) => [request.headers['webhook-id'], request])).values(),
    ];
    await until(() => distinctSteps().length >= 4);
    const steps = distinctSteps().map(({ body }) => `${body.agent}: ${body.tool ?? 'answer'}`);
    expect(steps).toEqual([
      'Traveller: log_stop',
      'Traveller: answer',
      'Crew Manager: Delegate work to coworker',
      'Crew Manager: answer',
    ]);
    const [task] = await receiver.waitFor('/tasks', 1);
    expect(task!.body).toMatchObject({
      task_id: 'trip',
      agent: 'Crew Manager',
      output: 'Manager: Porto is logged.',
    });
  });

  it('has the manager lead a task that names no agent, with every agent of the crew as a coworker', async () => {
    const crewd = await serveInProcess('managed-open-crew');
    try {
      const api = apiClient(crewd.url);
      const crew = await api.get('/crew');
      expect(crew.body.tasks).toMatchObject([{ name: 'notes', agent: null }]);
      const kickoff = await api.post('/kickoff', { inputs: { product: 'teapots' } });
      const id = kickoff.body.kickoff_id as string;
      const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);

      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.result).toMatch(/^Manager: Note \d+$/);
      expect(done.body.last_executed_task).toMatchObject({ task_id: 'notes', agent: 'Crew Manager' });
      const [managerCall] = chatRequests().filter(
        (request) => isManager(request) && JSON.stringify(request.body.messages).includes('no agent named'),
      );
      const offered = JSON.stringify(managerCall!.body.tools);
      expect(offered).toContain('- Checker');
      expect(offered).toContain('- Writer');
    } finally {
      await crewd.close();
    }
  });

  it('pauses a human-input task after the manager answers; a rejection retries it with the feedback, an approval completes it', async () => {
    const crewd = await serveInProcess('managed-review-crew');
    try {
      const api = apiClient(crewd.url);
      const kickoff = await api.post('/kickoff', { inputs: { product: 'kettles' } });
      const id = kickoff.body.kickoff_id as string;
      const paused = await api.waitForState(id, ['PAUSED', 'FAILED']);
      expect(paused.body.pending_human_input).toMatchObject({ task_id: 'notes', attempt: 1 });
      expect(paused.body.progress).toMatchObject({
        current: 'notes',
        current_agent: 'Crew Manager',
        completed: 0,
      });
      expect(paused.body.last_executed_task).toMatchObject({ agent: 'Crew Manager' });

      const rejected = await api.post('/resume', {
        execution_id: id,
        task_id: 'notes',
        human_feedback: 'Mention the price.',
        is_approve: false,
      });
      expect(rejected.body.status).toBe('retrying');
      const again = await api.waitForState(id, ['PAUSED', 'FAILED']);
      expect(again.body.pending_human_input).toMatchObject({ task_id: 'notes', attempt: 2 });
      const retried = chatRequests().filter(
        (request) =>
          isManager(request) && JSON.stringify(request.body.messages).includes('Mention the price.'),
      );
      expect(retried.length).toBeGreaterThan(0);

      const approved = await api.post('/resume', {
        execution_id: id,
        task_id: 'notes',
        human_feedback: 'Good.',
        is_approve: true,
      });
      expect(approved.body.status).toBe('completed');
      const done = await api.get(`/status/${id}`);
      expect(done.body).toMatchObject({
        state: 'SUCCESS',
        progress: { completed: 1, total: 1, remaining: 0 },
      });
      expect(done.body.result).toBe(again.body.pending_human_input.output);
    } finally {
      await crewd.close();
    }
  });
});
