import { describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../src/domain/execution.ts';
import { noWebhooks } from '../../src/domain/execution.ts';
import type {
  Caller,
  ExecutionService,
  KickoffRequest,
  ResumeRequest,
} from '../../src/service/execution-service.ts';
import type { StoredExecutionEvent } from '../../src/store/store.ts';
import { rejectionOf } from '../store/store-fixtures.ts';

/**
 * An execution service under test, with what a run would do to its executions (the contract is about the
 * service's own rules: ownership, idempotency, pending checks, cancel, listing and event streams).
 */
export interface ExecutionServiceSubject {
  readonly service: ExecutionService;
  /**
   * Moves a kicked-off execution to PAUSED, waiting for feedback on `taskId`, with the outputs of the tasks before
   * it that it does not have yet (as its run would have written them).
   */
  pause(executionId: string, taskId: string): Promise<void>;
  /** Adds an event to the execution's log, as its run would. */
  appendEvent(executionId: string, type: string, data: Record<string, unknown>): Promise<void>;
  /** Ends an execution in a finished state, as its run would. */
  finish(executionId: string, state: ExecutionState): Promise<void>;
  close(): Promise<void>;
}

const org: Caller = { tokenId: 'token-org', kind: 'org', userId: null };
const alice: Caller = { tokenId: 'token-alice', kind: 'user', userId: 'alice' };
const bob: Caller = { tokenId: 'token-bob', kind: 'user', userId: 'bob' };
const inputs = { topic: 'tides', current_year: '2026' };

function kickoffRequest(caller: Caller, overrides: Partial<KickoffRequest> = {}): KickoffRequest {
  return { inputs, meta: null, webhooks: noWebhooks, idempotencyKey: null, caller, ...overrides };
}

function resumeRequest(executionId: string, taskId: string, approve: boolean, caller = org): ResumeRequest {
  return {
    executionId,
    taskId,
    feedback: approve ? 'Looks good' : 'Shorter, please',
    approve,
    taskUrl: null,
    stepUrl: null,
    crewUrl: null,
    humanInput: null,
    events: null,
    caller,
  };
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown }).code;
}

/**
 * The promises of `ExecutionService`, run against every implementation: the real service over a store and the
 * in-memory one the HTTP tests use, so the one cannot drift from the other. The crew is the example crew of the
 * API tests: `research`, then `review` (human input), then `write`; inputs `topic` and `current_year`.
 */
export function describeExecutionServiceContract(
  name: string,
  open: () => Promise<ExecutionServiceSubject>,
): void {
  describe(`${name}: the execution service contract`, () => {
    async function withSubject(test: (subject: ExecutionServiceSubject) => Promise<void>): Promise<void> {
      const subject = await open();
      try {
        await test(subject);
      } finally {
        await subject.close();
      }
    }

    it('keeps a kickoff as a PENDING execution of its caller, with its inputs and meta', () =>
      withSubject(async ({ service }) => {
        const { kickoffId } = await service.kickoff(kickoffRequest(alice, { meta: { ticket: 7 } }));

        const execution = await service.get(kickoffId, alice);
        expect(execution).toMatchObject({
          id: kickoffId,
          state: 'PENDING',
          inputs,
          meta: { ticket: 7 },
          owner: { tokenId: alice.tokenId, userId: 'alice' },
        });
      }));

    it('refuses a kickoff missing required inputs, naming them, and keeps nothing', () =>
      withSubject(async ({ service }) => {
        const error = await rejectionOf(service.kickoff(kickoffRequest(org, { inputs: { topic: 'tides' } })));

        expect(error).toMatchObject({ code: 'MISSING_INPUTS', missingInputs: ['current_year'] });
        expect((await service.list({ limit: 10, caller: org })).items).toEqual([]);
      }));

    it('answers a repeated Idempotency-Key with the same execution, per token, and refuses it with another body', () =>
      withSubject(async ({ service }) => {
        const first = await service.kickoff(kickoffRequest(alice, { idempotencyKey: 'k1' }));
        const again = await service.kickoff(kickoffRequest(alice, { idempotencyKey: 'k1' }));
        const otherToken = await service.kickoff(kickoffRequest(bob, { idempotencyKey: 'k1' }));
        const conflict = await rejectionOf(
          service.kickoff(kickoffRequest(alice, { idempotencyKey: 'k1', meta: { other: true } })),
        );

        expect(again.kickoffId).toBe(first.kickoffId);
        expect(otherToken.kickoffId).not.toBe(first.kickoffId);
        expect(codeOf(conflict)).toBe('IDEMPOTENCY_CONFLICT');
        expect((await service.list({ limit: 10, caller: org })).items).toHaveLength(2);
      }));

    it("answers another user's execution as if it did not exist, through every operation", () =>
      withSubject(async (subject) => {
        const { service } = subject;
        const { kickoffId } = await service.kickoff(kickoffRequest(alice));
        await subject.pause(kickoffId, 'review');
        const signal = new AbortController().signal;

        const refusals = await Promise.all([
          rejectionOf(service.get(kickoffId, bob)),
          rejectionOf(service.resume(resumeRequest(kickoffId, 'review', true, bob))),
          rejectionOf(service.cancel(kickoffId, bob)),
          rejectionOf(service.openEventStream(kickoffId, bob, 0, signal)),
          rejectionOf(service.deliveries(kickoffId, bob)),
          rejectionOf(service.get('00000000-0000-4000-8000-000000000000', org)),
        ]);

        expect(refusals.map(codeOf)).toEqual(Array(6).fill('NOT_FOUND'));
        expect((await service.get(kickoffId, alice)).state).toBe('PAUSED');
        expect((await service.get(kickoffId, org)).state).toBe('PAUSED');
      }));

    it('lists what the caller may see, newest first, by state and page by page', () =>
      withSubject(async (subject) => {
        const { service } = subject;
        const ids: string[] = [];
        for (const caller of [alice, bob, alice, alice, bob]) {
          ids.push((await service.kickoff(kickoffRequest(caller))).kickoffId);
        }
        await subject.finish(ids[2]!, 'SUCCESS');
        const aliceIds = [ids[3]!, ids[2]!, ids[0]!];

        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await service.list({
            limit: 2,
            caller: alice,
            ...(cursor === undefined ? {} : { cursor }),
          });
          seen.push(...page.items.map((execution) => execution.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);

        expect(seen).toEqual(aliceIds);
        const succeeded = await service.list({ limit: 10, caller: alice, state: 'SUCCESS' });
        expect(succeeded.items.map((execution) => execution.id)).toEqual([ids[2]]);
        expect((await service.list({ limit: 10, caller: org })).items).toHaveLength(5);
      }));

    it('takes feedback only for the task an execution is paused on', () =>
      withSubject(async (subject) => {
        const { service } = subject;
        const { kickoffId } = await service.kickoff(kickoffRequest(org));

        const notPaused = await rejectionOf(service.resume(resumeRequest(kickoffId, 'review', true)));
        await subject.pause(kickoffId, 'review');
        const otherTask = await rejectionOf(service.resume(resumeRequest(kickoffId, 'research', true)));

        expect(codeOf(notPaused)).toBe('NOT_PENDING_HUMAN_INPUT');
        expect(codeOf(otherTask)).toBe('NOT_PENDING_HUMAN_INPUT');
        expect((await service.get(kickoffId, org)).state).toBe('PAUSED');
      }));

    it('runs a rejected task again and goes on after an approval, completing when the task was the last', () =>
      withSubject(async (subject) => {
        const { service } = subject;
        const { kickoffId } = await service.kickoff(kickoffRequest(org));
        await subject.pause(kickoffId, 'review');

        const rejected = await service.resume(resumeRequest(kickoffId, 'review', false));
        expect(rejected.status).toBe('retrying');
        expect((await service.get(kickoffId, org)).state).toBe('PENDING');

        await subject.pause(kickoffId, 'review');
        const approved = await service.resume(resumeRequest(kickoffId, 'review', true));
        expect(approved.status).toBe('resumed');
        const resumed = await service.get(kickoffId, org);
        expect(resumed).toMatchObject({ state: 'PENDING', pending: null });
        expect(resumed.outputs.map((output) => output.taskId)).toContain('review');

        const second = await rejectionOf(service.resume(resumeRequest(kickoffId, 'review', true)));
        expect(codeOf(second)).toBe('NOT_PENDING_HUMAN_INPUT');

        await subject.pause(kickoffId, 'write');
        const completed = await service.resume(resumeRequest(kickoffId, 'write', true));
        expect(completed.status).toBe('completed');
        expect((await service.get(kickoffId, org)).state).toBe('SUCCESS');
      }));

    it('cancels an unfinished execution and leaves a finished one as it is', () =>
      withSubject(async (subject) => {
        const { service } = subject;
        const pending = (await service.kickoff(kickoffRequest(org))).kickoffId;
        const paused = (await service.kickoff(kickoffRequest(org))).kickoffId;
        const done = (await service.kickoff(kickoffRequest(org))).kickoffId;
        await subject.pause(paused, 'review');
        await subject.finish(done, 'FAILED');

        expect((await service.cancel(pending, org)).state).toBe('REVOKED');
        expect((await service.cancel(paused, org)).state).toBe('REVOKED');
        expect((await service.cancel(done, org)).state).toBe('FAILED');
        expect((await service.get(paused, org)).pending).toBeNull();
      }));

    it('streams the events after the one asked for, then new ones, and ends once the execution is finished', () =>
      withSubject(async (subject) => {
        const { service } = subject;
        const { kickoffId } = await service.kickoff(kickoffRequest(alice));
        await subject.appendEvent(kickoffId, 'note', { n: 1 });
        await subject.appendEvent(kickoffId, 'note', { n: 2 });

        const stream = await service.openEventStream(kickoffId, alice, 1, new AbortController().signal);
        const read: StoredExecutionEvent[] = [];
        const reading = (async () => {
          for await (const event of stream) read.push(event);
        })();
        await subject.appendEvent(kickoffId, 'note', { n: 3 });
        await subject.finish(kickoffId, 'SUCCESS');
        await reading;

        const notes = read.filter((event) => (event.type as string) === 'note');
        expect(notes.map((event) => event.data)).toEqual([{ n: 2 }, { n: 3 }]);
        expect(read[0]!.sequence).toBe(2);
        expect(read.map((event) => event.sequence)).toEqual(
          [...read.map((event) => event.sequence)].sort((a, b) => a - b),
        );
      }));

    it('ends an event stream when its signal aborts, while the execution goes on', () =>
      withSubject(async ({ service }) => {
        const { kickoffId } = await service.kickoff(kickoffRequest(org));
        const controller = new AbortController();
        const stream = await service.openEventStream(kickoffId, org, 0, controller.signal);

        const reading = (async () => {
          const read: StoredExecutionEvent[] = [];
          for await (const event of stream) read.push(event);
          return read;
        })();
        controller.abort();

        expect(await reading).toEqual([]);
        expect((await service.get(kickoffId, org)).state).toBe('PENDING');
      }));
  });
}
