import { anyLogEntry } from '../store/store-fixtures.ts';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Execution, ExecutionState } from '../../src/domain/execution.ts';
import { executionStates, statesLeadingTo } from '../../src/domain/execution.ts';
import { DurableExecutionService } from '../../src/service/durable-execution-service.ts';
import { EventHub } from '../../src/service/event-hub.ts';
import type { ExecutionRunner } from '../../src/service/execution-runner.ts';
import { Notifications } from '../../src/service/notifications.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { ExecutionChange } from '../../src/store/store.ts';
import type { TaskOutput } from '../../src/domain/task-output.ts';
import { exampleCrew, taskOutput } from '../api/support/example-crew.ts';
import { InMemoryExecutionService } from '../api/support/in-memory-execution-service.ts';
import { idleDispatcher } from './idle-dispatcher.ts';
import { describeExecutionServiceContract } from './execution-service-contract.ts';

describeExecutionServiceContract('the crew service over SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crewd-service-'));
  const store = await openSqliteStore(join(dir, 'crewd.db'));
  await store.migrate();
  const hub = new EventHub();
  let clock = Date.parse('2030-01-01T00:00:00.000Z');
  const now = (): Date => new Date((clock += 1000));
  const service = new DurableExecutionService({
    crew: exampleCrew,
    store,
    runner: { stop: () => {} } as unknown as ExecutionRunner,
    dispatcher: idleDispatcher,
    notifications: new Notifications(randomUUID),
    events: hub,
    clock: now,
    newId: randomUUID,
    onCommitted: (execution, change) => hub.publish(execution, change),
    lease: { owner: 'this process', durationMs: 30_000 },
  });
  const apply = async (change: ExecutionChange): Promise<void> => {
    const applied = await store.applyChange(change);
    if (applied === null) throw new Error(`the change to ${change.executionId} did not apply`);
    hub.publish(applied, change);
  };
  const stateOf = async (id: string): Promise<ExecutionState> =>
    ((await store.getExecution(id)) as Execution).state;
  const moveTo = async (
    id: string,
    state: ExecutionState,
    extra: Partial<ExecutionChange> = {},
  ): Promise<void> => {
    if (!statesLeadingTo(state).includes(await stateOf(id))) {
      await apply({ executionId: id, fromStates: ['PENDING'], state: 'RUNNING', now: now() });
    }
    await apply({ executionId: id, fromStates: statesLeadingTo(state), state, now: now(), ...extra });
  };
  let attempt = 0;
  return {
    service,
    pause: async (id, taskId) => {
      attempt += 1;
      if ((await stateOf(id)) === 'PENDING') await moveTo(id, 'RUNNING');
      const { outputs } = (await store.getExecution(id)) as Execution;
      for (const earlier of tasksBefore(taskId, outputs)) {
        const output = taskOutput(earlier, 'Done');
        await apply({ executionId: id, fromStates: ['RUNNING'], appendOutput: output, now: now() });
      }
      const pending = { taskId, attempt, output: taskOutput(taskId, 'Draft', attempt) };
      await moveTo(id, 'PAUSED', { pending });
    },
    appendEvent: (id, type, data) =>
      apply({ executionId: id, fromStates: executionStates, events: [anyLogEntry(type, data)], now: now() }),
    finish: (id, state) => moveTo(id, state, { events: [anyLogEntry('execution-end', { state })] }),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describeExecutionServiceContract('the in-memory service of the HTTP tests', () => {
  const service = new InMemoryExecutionService();
  return Promise.resolve({
    service,
    pause: (id, taskId) => {
      const execution = service.peek(id)!;
      const earlier = tasksBefore(taskId, execution.outputs).map((name) => taskOutput(name, 'Done'));
      service.put({
        ...execution,
        state: 'PAUSED',
        outputs: [...execution.outputs, ...earlier],
        pending: { taskId, attempt: 1, output: taskOutput(taskId, 'Draft') },
      });
      return Promise.resolve();
    },
    appendEvent: (id, type, data) => {
      service.appendEvent(id, type, data);
      return Promise.resolve();
    },
    finish: (id, state) => {
      service.finish(id, state);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  });
});

/** The example crew's tasks before `taskId` that have no output yet. */
function tasksBefore(taskId: string, outputs: readonly TaskOutput[]): string[] {
  const names = exampleCrew.tasks.map((task) => task.name);
  const done = new Set(outputs.map((output) => output.taskId));
  return names.slice(0, names.indexOf(taskId)).filter((name) => !done.has(name));
}
