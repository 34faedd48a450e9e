import { randomUUID } from 'node:crypto';
import { canTransition, noWebhooks } from '../../src/domain/execution.ts';
import type { ExecutionState } from '../../src/domain/execution.ts';
import type { TaskOutput } from '../../src/domain/task-output.ts';
import type {
  NewExecution,
  NewExecutionEvent,
  NewOutboxMessage,
  Store,
  TokenRecord,
} from '../../src/store/store.ts';

/** A fixed clock origin, so stored times can be compared exactly. */
export const t0 = new Date('2030-01-01T00:00:00.000Z');

/** `t0` plus this many seconds. */
export function at(seconds: number): Date {
  return new Date(t0.getTime() + seconds * 1000);
}

export function newExecution(overrides: Partial<NewExecution> = {}): NewExecution {
  return {
    id: randomUUID(),
    inputs: { topic: 'AI agents', current_year: 2030 },
    meta: { requester: 'tests' },
    webhooks: noWebhooks,
    owner: { tokenId: 'token-org', userId: null },
    idempotencyKey: null,
    requestHash: null,
    createdAt: t0,
    ...overrides,
  };
}

export function taskOutput(taskId: string, attempt = 1): TaskOutput {
  return {
    taskId,
    description: `Do ${taskId}`,
    expectedOutput: 'A paragraph',
    summary: `Output of ${taskId}`,
    agent: 'Researcher',
    output: `Output of ${taskId}, attempt ${attempt}`,
    outputJson: null,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, successfulRequests: 1 },
    attempt,
  };
}

export function outboxMessage(url: string, overrides: Partial<NewOutboxMessage> = {}): NewOutboxMessage {
  return {
    id: `msg_${randomUUID()}`,
    kind: 'task',
    url,
    payload: { kickoff_id: 'k', task_id: 'research' },
    headers: {},
    ...overrides,
  };
}

export function tokenRecord(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id: randomUUID(),
    kind: 'org',
    userId: null,
    name: 'ops',
    crews: null,
    deploy: false,
    hash: randomUUID().replaceAll('-', '').padEnd(64, '0'),
    createdAt: t0,
    revokedAt: null,
    ...overrides,
  };
}

/** Creates an execution and moves it to `state` (through RUNNING when needed). */
export async function createInState(
  store: Store,
  state: ExecutionState,
  overrides: Partial<NewExecution> = {},
): Promise<string> {
  const { execution } = await store.createExecution(newExecution(overrides));
  const path: ExecutionState[] = canTransition('PENDING', state) ? [state] : ['RUNNING', state];
  let from: ExecutionState = 'PENDING';
  for (const to of state === 'PENDING' ? [] : path) {
    await store.applyChange({
      executionId: execution.id,
      fromStates: [from],
      state: to,
      now: execution.createdAt,
    });
    from = to;
  }
  return execution.id;
}

/** Creates an execution whose change queues these outbox messages at `now`. */
export async function queueMessages(
  store: Store,
  messages: readonly NewOutboxMessage[],
  now: Date = t0,
): Promise<string> {
  const { execution } = await store.createExecution(newExecution({ createdAt: now }));
  await store.applyChange({ executionId: execution.id, fromStates: ['PENDING'], outbox: messages, now });
  return execution.id;
}

/** What the promise rejected with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject');
}

/**
 * An event-log entry of any type and data, for tests of what stores and streams keep and pass on whatever the
 * entry says; the real entries are the union of `src/domain/execution-log.ts`.
 */
export function anyLogEntry(type: string, data: Readonly<Record<string, unknown>> = {}): NewExecutionEvent {
  return { type, data } as unknown as NewExecutionEvent;
}
