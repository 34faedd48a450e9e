import { describe, expect, it } from 'vitest';
import { makeExecution, taskOutput } from '../../test/api/support/example-crew.ts';
import type { A2aPushTarget } from '../domain/execution.ts';
import { noWebhooks } from '../domain/execution.ts';
import { Notifications } from './notifications.ts';

const now = new Date('2025-01-01T10:05:00.000Z');
const legacy: A2aPushTarget = {
  id: 'default',
  url: 'https://hooks.example.com/a2a',
  token: 'notify-me',
  authentication: null,
  protocol: '0.3',
};
const current: A2aPushTarget = {
  id: 'v1',
  url: 'https://hooks.example.com/a2a-v1',
  token: null,
  authentication: { scheme: 'Bearer', credentials: 'secret' },
  protocol: '1.0',
};
let ids = 0;
const notifications = new Notifications(() => `id-${++ids}`);

describe('A2A push notifications', () => {
  const execution = makeExecution({
    id: 'e1',
    state: 'RUNNING',
    webhooks: { ...noWebhooks, a2aPush: [legacy, current] },
  });

  it('posts the task to every config when a change moves the execution, in each config protocol', () => {
    const pending = { taskId: 'review', attempt: 1, output: taskOutput('review', 'Draft') };
    const messages = notifications
      .streamed(execution, { executionId: 'e1', fromStates: ['RUNNING'], state: 'PAUSED', pending, now })
      .filter((message) => message.kind === 'a2a');

    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({
      url: legacy.url,
      headers: { 'x-a2a-notification-token': 'notify-me' },
      payload: {
        kind: 'task',
        id: 'e1',
        status: {
          state: 'input-required',
          message: {
            parts: [
              { kind: 'text', text: 'Draft' },
              { kind: 'data', data: { task_id: 'review' } },
            ],
          },
        },
      },
    });
    expect(messages[1]).toMatchObject({
      url: current.url,
      headers: { authorization: 'Bearer secret' },
      payload: { task: { id: 'e1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } },
    });
  });

  it('sends nothing for a change that leaves the state as it is, or without configs', () => {
    const step = {
      executionId: 'e1',
      fromStates: ['RUNNING'] as const,
      patch: { currentTask: 'write' },
      now,
    };
    expect(notifications.streamed(execution, step)).toEqual([]);
    const none = makeExecution({ id: 'e2', state: 'RUNNING' });
    expect(notifications.streamed(none, { ...step, executionId: 'e2', state: 'SUCCESS' })).toEqual([]);
  });

  it('carries the result and its JSON in the completed task', () => {
    const [message] = notifications.streamed(execution, {
      executionId: 'e1',
      fromStates: ['RUNNING'],
      state: 'SUCCESS',
      patch: { result: 'Done', resultJson: { score: 3 } },
      now,
    });
    expect(message?.payload).toMatchObject({
      status: { state: 'completed' },
      artifacts: [
        {
          artifactId: 'result',
          parts: [
            { kind: 'text', text: 'Done' },
            { kind: 'data', data: { score: 3 } },
          ],
        },
      ],
    });
  });
});
