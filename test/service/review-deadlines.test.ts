import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CrewDefinition } from '../../src/domain/crew.ts';
import type { Execution } from '../../src/domain/execution.ts';
import type { ReviewOutcome } from '../../src/domain/review-deadline.ts';
import { DurableExecutionService } from '../../src/service/durable-execution-service.ts';
import { EventHub } from '../../src/service/event-hub.ts';
import type { ExecutionRunner } from '../../src/service/execution-runner.ts';
import { Notifications } from '../../src/service/notifications.ts';
import { ReviewDeadlines } from '../../src/service/review-deadlines.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { exampleCrew, taskOutput } from '../api/support/example-crew.ts';
import { newExecution } from '../store/store-fixtures.ts';
import { idleDispatcher } from './idle-dispatcher.ts';

const t0 = new Date('2030-01-01T00:00:00.000Z');
const hour = 3_600_000;
const reviewHook = {
  url: 'https://hooks.example.com/review',
  authentication: { strategy: 'bearer', token: 'tok' },
} as const;

/** The example crew with a deadline of an hour on its `review` task. */
function crewWithDeadline(outcome: ReviewOutcome): CrewDefinition {
  return {
    ...exampleCrew,
    tasks: exampleCrew.tasks.map((task) =>
      task.name === 'review' ? { ...task, reviewDeadline: { afterMs: hour, outcome } } : task,
    ),
  };
}

/** A clock the test moves: the scanner reads time only from it. */
function testClock() {
  let now = t0.getTime();
  return { now: () => new Date(now), set: (ms: number) => (now = t0.getTime() + ms) };
}

let dir: string;
const stores: Store[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crewd-review-deadlines-'));
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One process: its store on the shared file, its service and its scanner, all on `clock`. */
async function process(crew: CrewDefinition, clock: () => Date) {
  const store = await openSqliteStore(join(dir, 'crewd.db'));
  stores.push(store);
  await store.migrate();
  const hub = new EventHub();
  const service = new DurableExecutionService({
    crew,
    store,
    runner: { stop: () => {} } as unknown as ExecutionRunner,
    dispatcher: idleDispatcher,
    notifications: new Notifications(randomUUID),
    events: hub,
    clock,
    newId: randomUUID,
    onCommitted: (execution, change) => hub.publish(execution, change),
    lease: { owner: `process-${randomUUID()}`, durationMs: 30_000 },
  });
  const deadlines = new ReviewDeadlines({
    store,
    clock,
    answer: (id) => service.answerOnDeadline(id),
    scanMs: 3_600_000,
    onError: (error) => {
      throw error;
    },
  });
  return { store, service, deadlines };
}

/** An execution paused on `review` at `t0`, due at `t0` plus an hour, as the engine leaves it. */
async function pausedOnReview(store: Store, outcome: ReviewOutcome): Promise<string> {
  const { execution } = await store.createExecution(
    newExecution({
      createdAt: t0,
      webhooks: { taskUrl: null, stepUrl: null, crewUrl: null, humanInput: reviewHook },
    }),
  );
  const step = { executionId: execution.id, now: t0 };
  await store.applyChange({ ...step, fromStates: ['PENDING'], state: 'RUNNING' });
  await store.applyChange({
    ...step,
    fromStates: ['RUNNING'],
    appendOutput: taskOutput('research', 'Facts'),
  });
  await store.applyChange({
    ...step,
    fromStates: ['RUNNING'],
    state: 'PAUSED',
    pending: {
      taskId: 'review',
      attempt: 1,
      output: taskOutput('review', 'Draft'),
      deadline: { at: new Date(t0.getTime() + hour), outcome },
    },
  });
  return execution.id;
}

async function reread(store: Store, id: string): Promise<Execution> {
  return (await store.getExecution(id))!;
}

const approve: ReviewOutcome = { approve: true };
const reject: ReviewOutcome = { approve: false, feedback: 'No reply in time; make it shorter.' };

describe('review deadlines', () => {
  it('does nothing before the deadline, then approves the review and says so in the log and to the webhook', async () => {
    const clock = testClock();
    const { store, deadlines } = await process(crewWithDeadline(approve), clock.now);
    const id = await pausedOnReview(store, approve);

    clock.set(hour - 1);
    expect(await deadlines.scan()).toBe(0);
    expect((await reread(store, id)).state).toBe('PAUSED');

    clock.set(hour);
    expect(await deadlines.scan()).toBe(1);
    const answered = await reread(store, id);
    expect(answered.state).toBe('PENDING');
    expect(answered.pending).toBeNull();
    expect(answered.outputs.map((output) => output.taskId)).toEqual(['research', 'review']);
    expect(answered.feedback).toEqual([
      { taskId: 'review', attempt: 1, text: '', approved: true, output: 'Draft', givenBy: 'deadline' },
    ]);
    const events = await store.listEvents(id, 0, 100);
    expect(events.at(-1)).toMatchObject({
      type: 'execution-resume',
      data: { task_id: 'review', attempt: 1, is_approve: true, given_by: 'deadline' },
    });
    const deliveries = await store.listDeliveries(id);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ kind: 'human_input', url: reviewHook.url });
    const [message] = await store.claimDueMessages(clock.now(), 10, 1000);
    expect(message?.payload).toMatchObject({
      event: 'human_input_deadline_passed',
      execution_id: id,
      kickoff_id: id,
      task_id: 'review',
      attempt: 1,
      is_approve: true,
      human_feedback: '',
    });
    expect(message?.headers).toEqual({ authorization: 'Bearer tok' });
  });

  it('rejects with the configured feedback, so the task runs again with it', async () => {
    const clock = testClock();
    const { store, deadlines } = await process(crewWithDeadline(reject), clock.now);
    const id = await pausedOnReview(store, reject);

    clock.set(2 * hour);
    expect(await deadlines.scan()).toBe(1);
    const answered = await reread(store, id);
    expect(answered.state).toBe('PENDING');
    expect(answered.outputs.map((output) => output.taskId)).toEqual(['research']);
    expect(answered.feedback).toEqual([
      {
        taskId: 'review',
        attempt: 1,
        text: reject.feedback,
        approved: false,
        output: 'Draft',
        givenBy: 'deadline',
      },
    ]);
  });

  it('answers a deadline that passed while no process ran at the first scan after a start', async () => {
    const clock = testClock();
    const first = await process(crewWithDeadline(approve), clock.now);
    const id = await pausedOnReview(first.store, approve);
    await first.store.close();
    stores.splice(0);

    clock.set(5 * hour);
    const restarted = await process(crewWithDeadline(approve), clock.now);
    expect(await restarted.deadlines.scan()).toBe(1);
    expect((await reread(restarted.store, id)).feedback).toHaveLength(1);
  });

  it('is answered once when two processes scan at the same moment', async () => {
    const clock = testClock();
    const first = await process(crewWithDeadline(approve), clock.now);
    const second = await process(crewWithDeadline(approve), clock.now);
    const ids = [];
    for (let index = 0; index < 5; index += 1) ids.push(await pausedOnReview(first.store, approve));

    clock.set(hour);
    const [byFirst, bySecond] = await Promise.all([first.deadlines.scan(), second.deadlines.scan()]);
    expect(byFirst + bySecond).toBe(5);
    for (const id of ids) {
      expect((await reread(first.store, id)).feedback).toHaveLength(1);
      expect(await first.store.listDeliveries(id)).toHaveLength(1);
    }
  });

  it("lets a person's answer just before the deadline win: the deadline then does nothing", async () => {
    const clock = testClock();
    const { store, service, deadlines } = await process(crewWithDeadline(reject), clock.now);
    const id = await pausedOnReview(store, reject);
    const caller = { kind: 'org', tokenId: 'token-org', userId: null } as const;

    clock.set(hour - 1);
    await service.resume({
      caller,
      executionId: id,
      taskId: 'review',
      feedback: 'Fine as it is',
      approve: true,
      taskUrl: null,
      stepUrl: null,
      crewUrl: null,
      humanInput: null,
      events: null,
    });
    clock.set(hour);
    expect(await deadlines.scan()).toBe(0);
    const answered = await reread(store, id);
    expect(answered.feedback).toEqual([
      { taskId: 'review', attempt: 1, text: 'Fine as it is', approved: true, output: 'Draft' },
    ]);
    expect(await store.listDeliveries(id)).toEqual([]);
  });

  it('lets exactly one of a person and the deadline answer when they come at the same moment', async () => {
    const clock = testClock();
    const { store, service } = await process(crewWithDeadline(approve), clock.now);
    const id = await pausedOnReview(store, approve);
    const caller = { kind: 'org', tokenId: 'token-org', userId: null } as const;

    clock.set(hour);
    const [byPerson, byDeadline] = await Promise.allSettled([
      service.resume({
        caller,
        executionId: id,
        taskId: 'review',
        feedback: 'Looks good',
        approve: true,
        taskUrl: null,
        stepUrl: null,
        crewUrl: null,
        humanInput: null,
        events: null,
      }),
      service.answerOnDeadline(id),
    ]);
    const personWon = byPerson.status === 'fulfilled';
    expect(byDeadline).toEqual({ status: 'fulfilled', value: !personWon });
    const answered = await reread(store, id);
    expect(answered.feedback).toHaveLength(1);
    expect(answered.feedback[0]?.givenBy).toBe(personWon ? undefined : 'deadline');
  });
});
