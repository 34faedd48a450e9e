import { describe, expect, it } from 'vitest';
import { executionCopy } from './execution-copy.ts';
import type { Execution } from './execution.ts';

describe('executionCopy', () => {
  it('copies each field to the field of the same name, the optional ones too', () => {
    // A distinct value in every field, so a field copied from the wrong one shows.
    const execution: Required<Execution> = {
      id: 'id',
      crew: 'crew',
      crewVersion: 7,
      state: 'RUNNING',
      inputs: { topic: 'tides' },
      meta: { team: 'a' },
      webhooks: { taskUrl: 'https://example.test/task', stepUrl: null, crewUrl: null, humanInput: null },
      owner: { tokenId: 'token', userId: 'user' },
      outputs: [],
      feedback: [],
      flowJournal: [],
      flowStateId: 'state',
      restoreStateFrom: 'restore',
      pending: null,
      currentTask: 'task',
      lastStep: null,
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3, successfulRequests: 1 },
      result: 'result',
      resultJson: { answer: 1 },
      error: 'error',
      createdAt: new Date(1),
      updatedAt: new Date(2),
      lastEventSequence: 3,
      revision: 4,
      startedAt: new Date(5),
      finishedAt: new Date(6),
      reviewDeadline: { afterMs: 60_000, outcome: { approve: true } },
      budget: { tokens: 100 },
      dailyBudget: { costUsd: 2 },
    };

    const copy = executionCopy(execution);

    expect(copy).not.toBe(execution);
    expect(Object.keys(copy).sort()).toEqual(Object.keys(execution).sort());
    for (const key of Object.keys(execution) as (keyof Execution)[]) expect(copy[key]).toBe(execution[key]);
  });
});
