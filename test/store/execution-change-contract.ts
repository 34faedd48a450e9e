import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../src/domain/events.ts';
import type { ExecutionChange, NewOutboxMessage } from '../../src/store/store.ts';
import type { StoreHarness } from './store-harness.ts';
import { at, newExecution, outboxMessage, t0, taskOutput, anyLogEntry } from './store-fixtures.ts';

const step: AgentStep = {
  taskId: 'research',
  agent: 'Researcher',
  prompt: 'Find sources',
  thought: 'I should search',
  tool: 'search',
  toolInput: { query: 'agents' },
  result: 'Three sources',
};

export function describeExecutionChangeContract(harness: StoreHarness): void {
  describe('applyChange', () => {
    it('overwrites the patched fields, keeps absent ones and clears those set to null', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5, successfulRequests: 1 };

      const running = await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        patch: { currentTask: 'research', lastStep: step, usage, startedAt: at(1) },
        now: at(1),
      });
      expect(running).toMatchObject({ state: 'RUNNING', currentTask: 'research', lastStep: step, usage });
      expect(running).toMatchObject({ startedAt: at(1), updatedAt: at(1), createdAt: t0 });

      const webhooks = {
        taskUrl: null,
        stepUrl: null,
        crewUrl: 'https://hooks.example.com/c',
        humanInput: null,
      };
      const finished = await store.applyChange({
        executionId: execution.id,
        fromStates: ['RUNNING'],
        state: 'SUCCESS',
        patch: {
          currentTask: null,
          result: 'All done',
          resultJson: { b: 2, a: 1 },
          error: null,
          webhooks,
          finishedAt: at(2),
        },
        now: at(2),
      });
      expect(finished).toEqual({
        ...running,
        state: 'SUCCESS',
        currentTask: null,
        result: 'All done',
        resultJson: { b: 2, a: 1 },
        webhooks,
        finishedAt: at(2),
        updatedAt: at(2),
        revision: 2,
      });
      expect(Object.keys(finished!.resultJson!)).toEqual(['b', 'a']);
      expect(await store.getExecution(execution.id)).toEqual(finished);

      const failedText = await store.applyChange({
        executionId: execution.id,
        fromStates: ['SUCCESS'],
        patch: { error: 'Late error', lastStep: null },
        now: at(3),
      });
      expect(failedText).toMatchObject({ error: 'Late error', lastStep: null, result: 'All done' });
    });

    it('counts every applied change in the revision, which can be read alone', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      expect(await store.getExecutionRevision(execution.id)).toBe(0);
      expect(await store.getExecutionRevision('no-such-execution')).toBeNull();

      const running = await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        now: at(1),
      });
      // No events, so the revision is the only thing that tells this change from the one before.
      const touched = await store.applyChange({
        executionId: execution.id,
        fromStates: ['RUNNING'],
        patch: { currentTask: 'research' },
        now: at(1),
      });
      const refused = await store.applyChange({
        executionId: execution.id,
        fromStates: ['PAUSED'],
        state: 'SUCCESS',
        now: at(2),
      });

      expect([running?.revision, touched?.revision, refused]).toEqual([1, 2, null]);
      expect(await store.getExecutionRevision(execution.id)).toBe(2);
      expect((await store.getExecution(execution.id))!.revision).toBe(2);
    });

    it('writes the events of a change in order, numbered after the ones before, however many it carries', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const started = await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        events: [anyLogEntry('execution-start')],
        now: at(1),
      });
      const many = Array.from({ length: 37 }, (_, index) => anyLogEntry('step-end', { index }));

      const written = await store.applyChange({
        executionId: execution.id,
        fromStates: ['RUNNING'],
        events: many,
        now: at(2),
      });

      expect([started?.lastEventSequence, written?.lastEventSequence]).toEqual([1, 38]);
      const events = await store.listEvents(execution.id, 1, 100);
      expect(events.map((event) => [event.sequence, event.type, event.data])).toEqual(
        many.map((_, index) => [index + 2, 'step-end', { index }]),
      );
      expect(events.every((event) => event.createdAt.getTime() === at(2).getTime())).toBe(true);
    });

    it('returns null and writes nothing when the execution is not in one of the expected states', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const change: ExecutionChange = {
        executionId: execution.id,
        fromStates: ['RUNNING', 'PAUSED'],
        state: 'SUCCESS',
        appendOutput: taskOutput('research'),
        events: [anyLogEntry('execution-end', {})],
        outbox: [outboxMessage('https://hooks.example.com/crew')],
        now: at(5),
      };
      expect(await store.applyChange(change)).toBeNull();
      expect(await store.getExecution(execution.id)).toEqual(execution);
      expect(await store.listEvents(execution.id, 0, 10)).toEqual([]);
      expect(await store.listDeliveries(execution.id)).toEqual([]);
      expect(await store.applyChange({ ...change, executionId: 'no-such-execution' })).toBeNull();
    });

    it('refuses a change that breaks the transition table and writes nothing', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const change = (fromStates: ExecutionChange['fromStates'], state: ExecutionChange['state']) =>
        store.applyChange({
          executionId: execution.id,
          fromStates,
          state,
          events: [anyLogEntry('x', {})],
          now: at(1),
        });

      await expect(change(['PENDING'], 'PAUSED')).rejects.toThrow('may not move from PENDING to PAUSED');
      await expect(change(['PENDING', 'SUCCESS'], 'RUNNING')).rejects.toThrow('from SUCCESS to RUNNING');
      expect(await store.getExecution(execution.id)).toEqual(execution);
      expect(await store.listEvents(execution.id, 0, 10)).toEqual([]);
      expect(await change(['PENDING'], 'RUNNING')).toMatchObject({ state: 'RUNNING' });
    });

    it('appends outputs and feedback in order', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const research = { ...taskOutput('research'), outputJson: { z: 1, a: [true] } };
      const feedback = { taskId: 'research', attempt: 1, text: 'More sources', approved: false, output: 'x' };
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        appendOutput: research,
        appendFeedback: feedback,
        now: at(1),
      });
      const updated = await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        appendOutput: taskOutput('write'),
        appendFeedback: { ...feedback, attempt: 2, approved: true },
        now: at(2),
      });
      expect(updated!.outputs).toEqual([research, taskOutput('write')]);
      expect(Object.keys(updated!.outputs[0]!.outputJson!)).toEqual(['z', 'a']);
      expect(updated!.feedback).toEqual([feedback, { ...feedback, attempt: 2, approved: true }]);
    });

    it("appends a flow's journal entries in order, and keeps none for a crew's execution", async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      expect(execution.flowJournal).toBeUndefined();
      const started = { kind: 'flow-started', state: { id: 'f1', topic: 'tea', nested: { z: 1, a: [2] } } };
      const completed = { kind: 'method-completed', method: 'draft', call: 1, output: 'x', result: 'x' };
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        appendFlowEntry: started,
        now: at(1),
      });
      const updated = await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        appendFlowEntry: completed,
        now: at(2),
      });
      expect(updated!.flowJournal).toEqual([started, completed]);
      expect((await store.getExecution(execution.id))!.flowJournal).toEqual([started, completed]);
    });

    it('sets the pending human input, keeps it when absent and clears it with null', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const pending = { taskId: 'review', attempt: 1, output: taskOutput('review') };
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        now: at(1),
      });
      const base = { executionId: execution.id, fromStates: ['RUNNING', 'PAUSED'] as const };

      expect((await store.applyChange({ ...base, state: 'PAUSED', pending, now: at(1) }))!.pending).toEqual(
        pending,
      );
      expect((await store.applyChange({ ...base, now: at(2) }))!.pending).toEqual(pending);
      expect((await store.applyChange({ ...base, pending: null, now: at(3) }))!.pending).toBeNull();
    });

    it('applies a change expecting a pending task and attempt only while exactly that input is pending', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        now: at(1),
      });
      const base = { executionId: execution.id, fromStates: ['RUNNING', 'PAUSED'] as const, now: at(1) };
      const expectReview = { taskId: 'review', attempt: 2 };

      expect(
        await store.applyChange({
          ...base,
          fromStates: ['RUNNING'],
          expectPending: expectReview,
          state: 'PAUSED',
        }),
      ).toBeNull();
      await store.applyChange({
        ...base,
        fromStates: ['RUNNING'],
        state: 'PAUSED',
        pending: { taskId: 'review', attempt: 2, output: taskOutput('review', 2) },
      });
      expect(
        await store.applyChange({ ...base, expectPending: { taskId: 'review', attempt: 1 } }),
      ).toBeNull();
      expect(await store.applyChange({ ...base, expectPending: { taskId: 'write', attempt: 2 } })).toBeNull();
      const resumed = await store.applyChange({
        ...base,
        fromStates: ['PAUSED'],
        expectPending: expectReview,
        state: 'PENDING',
        pending: null,
      });
      expect(resumed).toMatchObject({ state: 'PENDING', pending: null });
    });

    it('lets exactly one of several concurrent changes guarded on the same pending input win', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        now: at(1),
      });
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['RUNNING'],
        state: 'PAUSED',
        pending: { taskId: 'review', attempt: 1, output: taskOutput('review') },
        now: at(1),
      });
      const resume = (text: string) =>
        store.applyChange({
          executionId: execution.id,
          fromStates: ['PAUSED'],
          expectPending: { taskId: 'review', attempt: 1 },
          state: 'PENDING',
          pending: null,
          appendFeedback: { taskId: 'review', attempt: 1, text, approved: true, output: 'x' },
          events: [anyLogEntry('execution-resume', { text })],
          now: at(2),
        });

      const results = await Promise.all([resume('first'), resume('second'), resume('third')]);

      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      const stored = await store.getExecution(execution.id);
      expect(stored!.feedback).toEqual(winners[0]!.feedback);
      expect(stored!.feedback).toHaveLength(1);
      expect(await store.listEvents(execution.id, 0, 10)).toHaveLength(1);
    });

    it('applies changes to several executions asked for at once, each on its own terms', async () => {
      const store = await harness.open();
      const created = await Promise.all(
        Array.from({ length: 6 }, async () => (await store.createExecution(newExecution())).execution),
      );
      const messages = created.map((execution) =>
        outboxMessage('https://hooks.example.com/t', { payload: { kickoff_id: execution.id } }),
      );
      const start = (index: number, fromStates: ExecutionChange['fromStates']) =>
        store.applyChange({
          executionId: created[index]!.id,
          fromStates,
          state: 'RUNNING',
          patch: { currentTask: `task-${index}` },
          appendOutput: taskOutput(`task-${index}`),
          events: [anyLogEntry('task-start', { index }), anyLogEntry('task-end', { index })],
          outbox: [messages[index]!],
          now: at(1),
        });

      // The last change expects a state its execution is not in.
      const results = await Promise.all(
        created.map((_, index) => start(index, index === 5 ? ['RUNNING'] : ['PENDING'])),
      );

      results.slice(0, 5).forEach((result, index) => {
        expect(result).toMatchObject({
          id: created[index]!.id,
          state: 'RUNNING',
          currentTask: `task-${index}`,
        });
        expect(result!.outputs).toEqual([taskOutput(`task-${index}`)]);
        expect(result!.lastEventSequence).toBe(2);
      });
      expect(results[5]).toBeNull();
      for (const [index, execution] of created.entries()) {
        const events = await store.listEvents(execution.id, 0, 10);
        const deliveries = await store.listDeliveries(execution.id);
        if (index === 5) {
          expect(events).toEqual([]);
          expect(deliveries).toEqual([]);
          expect((await store.getExecution(execution.id))!.state).toBe('PENDING');
          continue;
        }
        expect(events.map((event) => [event.sequence, event.type, event.data])).toEqual([
          [1, 'task-start', { index }],
          [2, 'task-end', { index }],
        ]);
        expect(deliveries.map((delivery) => delivery.id)).toEqual([messages[index]!.id]);
      }
    });

    it('fails only the change that cannot be written when several are asked for at once', async () => {
      const store = await harness.open();
      const created = await Promise.all(
        Array.from({ length: 3 }, async () => (await store.createExecution(newExecution())).execution),
      );
      const taken = outboxMessage('https://hooks.example.com/t');
      await store.applyChange({
        executionId: created[0]!.id,
        fromStates: ['PENDING'],
        outbox: [taken],
        now: at(1),
      });
      const start = (index: number, message: NewOutboxMessage) =>
        store.applyChange({
          executionId: created[index]!.id,
          fromStates: ['PENDING'],
          state: 'RUNNING',
          events: [anyLogEntry('task-start', { index })],
          outbox: [message],
          now: at(2),
        });

      // The second reuses a message id that is already stored.
      const results = await Promise.allSettled([
        start(1, outboxMessage('https://hooks.example.com/t')),
        start(2, taken),
        start(0, outboxMessage('https://hooks.example.com/t')),
      ]);

      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((await store.getExecution(created[1]!.id))!.state).toBe('RUNNING');
      expect((await store.getExecution(created[2]!.id))!.state).toBe('PENDING');
      expect(await store.listEvents(created[2]!.id, 0, 10)).toEqual([]);
      expect((await store.listEvents(created[0]!.id, 0, 10)).map((event) => event.type)).toEqual([
        'task-start',
      ]);
    });

    it('returns the same execution as a read, given the copy it was written on top of', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution({ crew: 'crew', crewVersion: 2 }));
      const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5, successfulRequests: 1 };
      const pending = {
        taskId: 'review',
        attempt: 1,
        output: taskOutput('review'),
        deadline: { at: at(9), outcome: { approve: false, feedback: 'Too late' } },
      };
      const changes: ExecutionChange[] = [
        {
          executionId: execution.id,
          fromStates: ['PENDING'],
          state: 'RUNNING',
          patch: { startedAt: at(1), currentTask: 'research' },
          events: [anyLogEntry('execution-start'), anyLogEntry('task-start')],
          lease: { owner: 'process-a', until: at(30) },
          now: at(1),
        },
        {
          executionId: execution.id,
          fromStates: ['RUNNING'],
          patch: { lastStep: step, usage, currentTask: 'review' },
          appendOutput: { ...taskOutput('research'), outputJson: { z: 1, a: [true] } },
          events: [anyLogEntry('task-end'), anyLogEntry('task-start')],
          lease: { owner: 'process-a', until: at(32) },
          now: at(2),
        },
        {
          executionId: execution.id,
          fromStates: ['RUNNING'],
          state: 'PAUSED',
          pending,
          events: [anyLogEntry('human-input-request')],
          lease: { owner: 'process-a', until: null },
          now: at(3),
        },
        {
          executionId: execution.id,
          fromStates: ['PAUSED'],
          expectPending: { taskId: 'review', attempt: 1 },
          state: 'PENDING',
          pending: null,
          appendFeedback: { taskId: 'review', attempt: 1, text: 'Fine', approved: true, output: 'x' },
          now: at(4),
        },
        {
          executionId: execution.id,
          fromStates: ['PENDING'],
          state: 'RUNNING',
          lease: { owner: 'process-b', until: at(40) },
          now: at(5),
        },
        {
          executionId: execution.id,
          fromStates: ['RUNNING'],
          state: 'SUCCESS',
          patch: { result: 'done', resultJson: null, error: null, currentTask: null, finishedAt: at(6) },
          events: [anyLogEntry('execution-end')],
          lease: { owner: 'process-b', until: null },
          now: at(6),
        },
      ];
      let known = execution;
      for (const change of changes) {
        known = (await store.applyChange(change, known))!;
        expect(known).toEqual(await store.getExecution(execution.id));
      }
      expect(known).toMatchObject({ state: 'SUCCESS', revision: execution.revision + changes.length });
    });

    it('returns the execution as stored when the copy it was given is not the one it was written on top of', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const running = await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        patch: { currentTask: 'research' },
        now: at(1),
      });
      // Written with the copy from before the start: the result still says RUNNING and research.
      const updated = await store.applyChange(
        { executionId: execution.id, fromStates: ['RUNNING'], patch: { lastStep: step }, now: at(2) },
        execution,
      );
      expect(updated).toEqual(await store.getExecution(execution.id));
      expect(updated).toMatchObject({
        state: 'RUNNING',
        currentTask: 'research',
        revision: running!.revision + 1,
      });
    });

    it('lets exactly one of several concurrent changes from the same state win', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const start = () =>
        store.applyChange({
          executionId: execution.id,
          fromStates: ['PENDING'],
          state: 'RUNNING',
          now: at(1),
        });
      const results = await Promise.all([start(), start(), start(), start()]);
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });
  });
}
