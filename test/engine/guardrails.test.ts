import { describe, expect, it } from 'vitest';
import type { GuardrailSpec } from '../../src/domain/crew.ts';
import { CrewdError } from '../../src/domain/errors.ts';
import type { EngineEvent } from '../../src/domain/events.ts';
import type { Guardrail, GuardrailOutput, GuardrailVerdict } from '../../src/engine/guardrail.ts';
import { emptyUsage } from '../../src/domain/usage.ts';
import { checkCrew } from '../../src/engine/check-crew.ts';
import { toolRegistryOf } from '../../src/engine/tool.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import {
  agent,
  chatRequests,
  crew,
  lastMessage,
  messagesOf,
  engineHarnessPerTest,
  systemText,
  task,
  taskText,
  textOf,
} from './engine-harness.ts';
import type { EngineHarness } from './engine-harness.ts';

const harness = engineHarnessPerTest();

const kindness: GuardrailSpec = { kind: 'llm', description: 'The answer must be kind' };
const verdict = (valid: boolean, feedback: string | null = null) => ({
  content: JSON.stringify({ valid, feedback }),
});

/** A guardrail function that answers from a script and keeps what it was given. */
function scripted(name: string, ...verdicts: GuardrailVerdict[]): Guardrail & { seen: GuardrailOutput[] } {
  const seen: GuardrailOutput[] = [];
  return {
    name,
    seen,
    check(output) {
      seen.push(output);
      const next = verdicts.shift();
      if (next === undefined) throw new Error('no verdict left');
      return Promise.resolve(next);
    },
  };
}

function guardrailEvents(): Extract<EngineEvent, { type: 'guardrail-start' | 'guardrail-end' }>[] {
  return harness.events.flatMap((event) =>
    event.type === 'guardrail-start' || event.type === 'guardrail-end' ? [event] : [],
  );
}

function finalOutput(outcome: Awaited<ReturnType<EngineHarness['run']>>) {
  if (outcome.kind !== 'completed') throw new Error(`expected a completed run, got ${outcome.kind}`);
  return outcome.outputs.at(-1)!;
}

describe('string guardrails', () => {
  it("checks the answer with the agent's model and accepts it when the check passes", async () => {
    const definition = crew(
      [agent('writer', { llm: { model: 'openai/writer-model' } })],
      [task('write', 'writer', { guardrails: [kindness] })],
    );
    harness.fake.enqueue({ content: 'You did well.' }, verdict(true));

    const outcome = await harness.run(definition);

    expect(finalOutput(outcome)).toMatchObject({ output: 'You did well.' });
    const [, check] = chatRequests(harness.fake);
    expect(check!.body.model).toBe('writer-model');
    expect(systemText(check!)).toContain('Guardrail Agent');
    const query = taskText(check!);
    expect(query).toContain('Task result:\nYou did well.');
    expect(query).toContain('Guardrail:\nThe answer must be kind');
    expect(check!.body.response_format).toMatchObject({ json_schema: { name: 'LLMGuardrailResult' } });
    expect(guardrailEvents()).toEqual([
      {
        type: 'guardrail-start',
        check: {
          taskId: 'write',
          attempt: 1,
          agent: 'writer role',
          guardrailType: 'llm',
          guardrail: 'The answer must be kind',
          retryCount: 0,
        },
      },
      expect.objectContaining({ type: 'guardrail-end', success: true, error: null }),
    ]);
    // The check's model call counts in the task's usage like the agent's.
    expect(finalOutput(outcome).usage.successfulRequests).toBe(2);
  });

  it('sends the feedback of a failed check back to the agent, which answers again', async () => {
    const definition = crew([agent('writer')], [task('write', 'writer', { guardrails: [kindness] })]);
    harness.fake.enqueue(
      { content: 'You did badly.' },
      verdict(false, 'The answer calls the work bad'),
      { content: 'You did well.' },
      verdict(true),
    );

    const outcome = await harness.run(definition);

    expect(finalOutput(outcome).output).toBe('You did well.');
    const retry = chatRequests(harness.fake)[2]!;
    const prompt = taskText(retry);
    expect(prompt).toContain('Current task: Do write');
    expect(prompt).toContain('Previous attempt failed validation: The answer calls the work bad');
    expect(prompt).toContain('### Previous result:\nYou did badly.');
    // A new conversation, as crewAI's retry is a new execution of the task.
    expect(messagesOf(retry)).toHaveLength(2);
    expect(guardrailEvents().map((event) => [event.type, event.check.retryCount])).toEqual([
      ['guardrail-start', 0],
      ['guardrail-end', 0],
      ['guardrail-start', 1],
      ['guardrail-end', 1],
    ]);
    expect(guardrailEvents()[1]).toMatchObject({ success: false, error: 'The answer calls the work bad' });
  });

  it('treats an answer of the check it cannot read as a failed check, as crewAI does', async () => {
    const definition = crew([agent('writer')], [task('write', 'writer', { guardrails: [kindness] })]);
    harness.fake.enqueue(
      { content: 'First.' },
      { content: 'looks fine' },
      { content: 'Second.' },
      verdict(true),
    );

    const outcome = await harness.run(definition);

    expect(finalOutput(outcome).output).toBe('Second.');
    expect(taskText(chatRequests(harness.fake)[2]!)).toContain(
      'Previous attempt failed validation: Error while validating the task output',
    );
  });

  it('fails the task with the last feedback once the retries are spent', async () => {
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { guardrails: [kindness], guardrailMaxRetries: 1 })],
    );
    harness.fake.enqueue(
      { content: 'Bad.' },
      verdict(false, 'Unkind'),
      { content: 'Worse.' },
      verdict(false, 'Still unkind'),
    );

    const error = await harness.run(definition).catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(CrewdError);
    expect((error as CrewdError).code).toBe('TASK_FAILED');
    expect((error as CrewdError).message).toBe(
      'Task \'write\' failed: its guardrail "The answer must be kind" did not pass after 1 retry. Last feedback: Still unkind',
    );
    expect(chatRequests(harness.fake)).toHaveLength(4);
  });
});

describe('function guardrails', () => {
  it('passes the answer to the function and keeps it when the function passes it', async () => {
    const check = scripted('polite', { success: true });
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { guardrails: [{ kind: 'function', name: 'polite' }] })],
    );
    harness.fake.enqueue({ content: 'Hello there.' });

    const outcome = await harness.run(definition, { guardrails: [check] });

    expect(finalOutput(outcome).output).toBe('Hello there.');
    expect(check.seen).toEqual([
      {
        raw: 'Hello there.',
        json: null,
        taskId: 'write',
        description: 'Do write',
        expectedOutput: 'The write result',
        agent: 'writer role',
      },
    ]);
    expect(chatRequests(harness.fake)).toHaveLength(1);
    expect(guardrailEvents().map((event) => event.check.guardrailType)).toEqual(['function', 'function']);
  });

  it('fails, tells the agent why, then passes the new answer with a replacement text', async () => {
    const check = scripted(
      'short',
      { success: false, error: 'Use at most three words' },
      { success: true, result: 'HELLO' },
    );
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { guardrails: [{ kind: 'function', name: 'short' }] })],
    );
    harness.fake.enqueue({ content: 'Hello to all of you.' }, { content: 'Hello.' });

    const outcome = await harness.run(definition, { guardrails: [check] });

    expect(check.seen.map((output) => output.raw)).toEqual(['Hello to all of you.', 'Hello.']);
    expect(taskText(chatRequests(harness.fake)[1]!)).toContain(
      'Previous attempt failed validation: Use at most three words',
    );
    expect(finalOutput(outcome).output).toBe('HELLO');
  });

  it('runs a list of guardrails in order, each on the answer the one before passed on', async () => {
    const first = scripted('first', { success: true, result: 'replaced' });
    const second = scripted('second', { success: true });
    const definition = crew(
      [agent('writer')],
      [
        task('write', 'writer', {
          guardrails: [
            { kind: 'function', name: 'first' },
            { kind: 'function', name: 'second' },
          ],
        }),
      ],
    );
    harness.fake.enqueue({ content: 'original' });

    const outcome = await harness.run(definition, { guardrails: [first, second] });

    expect(second.seen.map((output) => output.raw)).toEqual(['replaced']);
    expect(finalOutput(outcome).output).toBe('replaced');
  });

  it('names a long last feedback by its start in the failure, which every status and crew webhook repeats', async () => {
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { guardrails: [kindness], guardrailMaxRetries: 0 })],
    );
    harness.fake.enqueue({ content: 'Bad.' }, verdict(false, 'u'.repeat(100_000)));

    const error = await harness.run(definition).catch((reason: unknown) => reason);

    expect((error as CrewdError).message).toBe(
      'Task \'write\' failed: its guardrail "The answer must be kind" did not pass after 0 retries. Last feedback: ' +
        `${'u'.repeat(4096)}… [clipped: 95904 more characters]`,
    );
  });

  it('gives a structured answer as JSON and takes a replacement object as the new JSON', async () => {
    const schema = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] };
    const check = scripted('cap', { success: true, result: { score: 10 } });
    const definition = crew(
      [agent('critic')],
      [task('review', 'critic', { outputJson: schema, guardrails: [{ kind: 'function', name: 'cap' }] })],
    );
    harness.fake.enqueue({ content: '{"score": 12}' });

    const outcome = await harness.run(definition, { guardrails: [check] });

    expect(check.seen[0]!.json).toEqual({ score: 12 });
    expect(finalOutput(outcome)).toMatchObject({ output: '{"score":10}', outputJson: { score: 10 } });
  });

  it('fails the task after the default three retries, naming the guardrail and its last feedback', async () => {
    const check = scripted(
      'never',
      ...[1, 2, 3, 4].map((n): GuardrailVerdict => ({ success: false, error: `no ${n}` })),
    );
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { guardrails: [{ kind: 'function', name: 'never' }] })],
    );
    harness.fake.enqueue({ content: 'a' }, { content: 'b' }, { content: 'c' }, { content: 'd' });

    await expect(harness.run(definition, { guardrails: [check] })).rejects.toMatchObject({
      code: 'TASK_FAILED',
      message: "Task 'write' failed: its guardrail 'never' did not pass after 3 retries. Last feedback: no 4",
    });
    expect(check.seen).toHaveLength(4);
  });

  it('fails the task when the function throws, with its message', async () => {
    const broken: Guardrail = { name: 'broken', check: () => Promise.reject(new Error('boom')) };
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { guardrails: [{ kind: 'function', name: 'broken' }] })],
    );
    harness.fake.enqueue({ content: 'a' });

    await expect(harness.run(definition, { guardrails: [broken] })).rejects.toMatchObject({
      message: "Task 'write' failed: its guardrail 'broken' failed: boom",
    });
  });

  it('refuses a guardrail function no tools/ module defines, saying how to write it', async () => {
    const definition = crew(
      [agent('writer')],
      [
        task('write', 'writer', {
          guardrails: [{ kind: 'function', name: 'check_length', pythonOrigin: 'src/demo/crew.py:4' }],
        }),
      ],
    );
    harness.fake.enqueue({ content: 'a' });

    await expect(harness.run(definition)).rejects.toMatchObject({
      message: expect.stringContaining(
        "uses guardrail 'check_length', which is the Python function src/demo/crew.py:4, which crewd cannot run; it needs a TypeScript guardrail of that name: add tools/check_length.ts",
      ),
    });
  });
});

describe('guardrails at start', () => {
  it('stops a crew at start when a guardrail function is missing, and lets it start once it exists', () => {
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { guardrails: [kindness, { kind: 'function', name: 'polite' }] })],
    );
    const models = createModelResolver({ env: { OPENAI_API_KEY: 'sk-test' }, baseDir: import.meta.dirname });
    const start = (guardrails: Guardrail[]) =>
      checkCrew(definition, { models, tools: toolRegistryOf([], guardrails), defaultModel: undefined });

    expect(() => start([])).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining(
          "Task 'write' uses guardrail 'polite', which needs a TypeScript guardrail",
        ),
      }),
    );
    expect(() => start([scripted('polite')])).not.toThrow();
  });
});

describe('guardrails after a restart', () => {
  it('goes on from the journal: no completed model call made again and no check reported twice', async () => {
    const definition = crew([agent('writer')], [task('write', 'writer', { guardrails: [kindness] })]);
    const answer = (text: string) => ({
      kind: 'model' as const,
      answer: { text, toolCalls: [] },
      usage: emptyUsage,
    });
    const journal = {
      taskId: 'write',
      attempt: 1,
      entries: [
        answer('You did badly.'),
        answer(JSON.stringify({ valid: false, feedback: 'Unkind' })),
        { kind: 'guardrail' as const },
      ],
    };
    harness.fake.enqueue({ content: 'You did well.' }, verdict(true));

    const outcome = await harness.run(definition, { checkpoint: { outputs: [], feedback: [], journal } });

    expect(finalOutput(outcome).output).toBe('You did well.');
    const requests = chatRequests(harness.fake);
    expect(requests).toHaveLength(2);
    expect(textOf(lastMessage(requests[0]!).content)).toContain('Previous attempt failed validation: Unkind');
    expect(guardrailEvents().map((event) => [event.type, event.check.retryCount])).toEqual([
      ['guardrail-start', 1],
      ['guardrail-end', 1],
    ]);
  });
});
