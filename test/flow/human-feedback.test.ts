import { describe, expect, it } from 'vitest';
import { feedbackOutcome } from '../../src/flow/feedback-outcome.ts';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import { flow, testModel, useFlowHarness } from './flow-harness.ts';

const harness = useFlowHarness();

const reviewFlow = `
name: Review
state: {type: dict, default: {draft: "A draft"}}
methods:
  write: {start: true, do: {call: expression, expr: "state.draft"}}
  review:
    listen: write
    do: {call: expression, expr: "outputs.write + ' (checked)'"}
    human_feedback:
      message: "Approve the draft?"
      emit: [approved, rejected]
      default_outcome: rejected
      llm: ${testModel}
  publish: {listen: approved, do: {call: expression, expr: "'published: ' + outputs.review.output + ' / ' + outputs.review.feedback"}}
  discard: {listen: rejected, do: {call: expression, expr: "'discarded'"}}
`;

describe('pausing and resuming', () => {
  it('pauses at a human_feedback method with its output, message and outcomes', async () => {
    const journal = new MemoryFlowJournal();
    const outcome = await harness.run(flow(reviewFlow), { journal });
    expect(outcome).toMatchObject({
      status: 'paused',
      method: 'review',
      output: 'A draft (checked)',
      message: 'Approve the draft?',
      emit: ['approved', 'rejected'],
    });
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('routes an exact outcome label without asking the model, and exposes the review in outputs', async () => {
    const journal = new MemoryFlowJournal();
    await harness.run(flow(reviewFlow), { journal });
    harness.started.length = 0;
    const outcome = await harness.run(flow(reviewFlow), { journal, feedback: 'approved' });
    expect(outcome).toMatchObject({ status: 'completed', result: 'published: A draft (checked) / approved' });
    // `review` starts again as in crewAI's resume (its action's output comes from the journal); `write` does not.
    expect(harness.started).toEqual(['review', 'publish']);
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('takes empty feedback as the default outcome (default outcome routes)', async () => {
    const journal = new MemoryFlowJournal();
    await harness.run(flow(reviewFlow), { journal });
    expect(await harness.run(flow(reviewFlow), { journal, feedback: '  ' })).toMatchObject({
      result: 'discarded',
    });
  });

  it('asks the method model to classify free text (collapses and routes)', async () => {
    harness.fake.respondWith(() => ({ content: '{"outcome": "approved"}' }));
    const journal = new MemoryFlowJournal();
    await harness.run(flow(reviewFlow), { journal });
    const outcome = await harness.run(flow(reviewFlow), { journal, feedback: 'ship it' });
    expect(outcome).toMatchObject({ result: 'published: A draft (checked) / ship it' });
    const prompt = harness.fake.requests[0]?.body.messages[0].content as string;
    expect(prompt).toContain('Feedback: ship it');
    expect(prompt).toContain('Possible outcomes: approved, rejected');
  });

  it('gives a review without outcomes to its listeners as the feedback result', async () => {
    const definition = flow(`
name: Plain
methods:
  draft: {start: true, do: {call: expression, expr: "'text'"}, human_feedback: {message: Looks right?}}
  after: {listen: draft, do: {call: expression, expr: "outputs.draft.feedback + ':' + outputs.draft.output"}}
`);
    const journal = new MemoryFlowJournal();
    expect(await harness.run(definition, { journal })).toMatchObject({ status: 'paused', emit: undefined });
    expect(await harness.run(definition, { journal, feedback: 'looks good' })).toMatchObject({
      result: 'looks good:text',
    });
  });

  it('refuses feedback when nothing waits for it', async () => {
    const journal = new MemoryFlowJournal();
    await harness.run(flow(reviewFlow), { journal });
    await harness.run(flow(reviewFlow), { journal, feedback: 'approved' });
    await expect(harness.run(flow(reviewFlow), { journal, feedback: 'again' })).rejects.toThrow(
      'Execution is not in pending human input state',
    );
  });
});

describe('rejecting the output of a method without emit', () => {
  const draftFlow = `
name: Drafting
methods:
  draft:
    start: true
    do: {call: agent, with: {role: Writer, goal: Write, backstory: Writes, input: "Write a slogan"}}
    human_feedback: {message: Good slogan?}
  publish: {listen: draft, do: {call: expression, expr: "'published: ' + outputs.draft.output.raw"}}
`;
  const slogans = (): void => {
    let written = 0;
    harness.fake.respondWith(() => ({ content: `Slogan ${(written += 1)}` }));
  };
  const prompts = (): string[] =>
    harness.fake.requests.map((request) => JSON.stringify(request.body.messages));

  it('runs the method again with the feedback and the rejected answer, then waits for review again', async () => {
    slogans();
    const journal = new MemoryFlowJournal();
    expect(await harness.run(flow(draftFlow), { journal })).toMatchObject({
      status: 'paused',
      method: 'draft',
      output: { raw: 'Slogan 1' },
    });
    const retried = await harness.run(flow(draftFlow), {
      journal,
      feedback: 'make it shorter',
      rejected: true,
    });
    expect(retried).toMatchObject({ status: 'paused', method: 'draft', output: { raw: 'Slogan 2' } });
    expect(prompts()).toHaveLength(2);
    expect(prompts()[0]).not.toContain('make it shorter');
    expect(prompts()[1]).toContain('make it shorter');
    expect(prompts()[1]).toContain('Slogan 1');
    expect(prompts()[1]).toContain('Write a slogan');
    const done = await harness.run(flow(draftFlow), { journal, feedback: 'good' });
    expect(done).toMatchObject({ status: 'completed', result: 'published: Slogan 2' });
    expect(prompts()).toHaveLength(2);
    // The journal numbers the retry as the method's next call; the rejected call never completed.
    const calls = journal.recorded.flatMap((entry) =>
      entry.kind === 'flow-started' ? [] : [`${entry.kind}:${entry.method}#${entry.call}`],
    );
    expect(calls).toEqual([
      'action-completed:draft#1',
      'feedback-given:draft#1',
      'action-completed:draft#2',
      'feedback-given:draft#2',
      'method-completed:draft#2',
      'method-completed:publish#1',
    ]);
  });

  it('replays a journal with a rejection without running any call again', async () => {
    slogans();
    const journal = new MemoryFlowJournal();
    await harness.run(flow(draftFlow), { journal });
    await harness.run(flow(draftFlow), { journal, feedback: 'shorter', rejected: true });
    // Started again over the journal (as after a crash) before anyone answered: the retried output waits again.
    expect(await harness.run(flow(draftFlow), { journal })).toMatchObject({
      status: 'paused',
      output: { raw: 'Slogan 2' },
    });
    await harness.run(flow(draftFlow), { journal, feedback: 'fine' });
    const copy = new MemoryFlowJournal();
    for (const entry of journal.recorded) await copy.append(entry);
    harness.started.length = 0;
    expect(await harness.run(flow(draftFlow), { journal: copy })).toMatchObject({
      status: 'completed',
      result: 'published: Slogan 2',
    });
    expect(harness.started).toEqual([]);
    expect(harness.fake.requests).toHaveLength(2);
    expect(copy.recorded).toHaveLength(journal.recorded.length);
  });

  it("gives a crew's retry the feedback on its last task, whose answer was the method's output", async () => {
    const definition = flow(`
name: CrewDrafting
methods:
  draft:
    start: true
    do:
      call: crew
      with:
        llm: ${testModel}
        agents: {writer: {role: Writer, goal: Write, backstory: Writes}}
        tasks:
          - {name: outline, description: Outline a slogan, expected_output: An outline, agent: writer}
          - {name: write, description: Write the slogan, expected_output: A slogan, agent: writer}
    human_feedback: {message: Good slogan?}
`);
    slogans();
    const journal = new MemoryFlowJournal();
    await harness.run(definition, { journal });
    expect(await harness.run(definition, { journal, feedback: 'use a rhyme', rejected: true })).toMatchObject(
      { status: 'paused', output: { raw: 'Slogan 4' } },
    );
    const [outline, write] = prompts().slice(2);
    expect(outline).toContain('Outline a slogan');
    expect(outline).not.toContain('use a rhyme');
    expect(write).toContain('Write the slogan');
    expect(write).toContain('use a rhyme');
    expect(write).toContain('Slogan 2');
  });

  it('replays a race won by a retried method without starting the racer it beat', async () => {
    const definition = flow(`
name: Race
methods:
  begin: {start: true, do: {call: expression, expr: "'go'"}}
  quick: {listen: begin, do: {call: expression, expr: "'quick'"}, human_feedback: {message: Fine?}}
  slow:
    listen: begin
    do: {call: agent, with: {role: Writer, goal: Write, backstory: Writes, input: "Take your time"}}
  after: {listen: {or: [quick, slow]}, do: {call: expression, expr: "'after ' + outputs.quick.output"}}
`);
    slogans();
    const journal = new MemoryFlowJournal();
    await harness.run(definition, { journal });
    await harness.run(definition, { journal, feedback: 'again', rejected: true });
    expect(await harness.run(definition, { journal, feedback: 'fine' })).toMatchObject({
      status: 'completed',
      result: 'after quick',
    });
    const copy = new MemoryFlowJournal();
    for (const entry of journal.recorded) await copy.append(entry);
    harness.started.length = 0;
    expect(await harness.run(definition, { journal: copy })).toMatchObject({ result: 'after quick' });
    expect(harness.started).toEqual([]);
  });

  it('runs an expression method again with the same inputs', async () => {
    const definition = flow(`
name: Counter
state: {type: dict, default: {n: 1}}
methods:
  count: {start: true, do: {call: expression, expr: "state.n"}, human_feedback: {message: Right?}}
`);
    const journal = new MemoryFlowJournal();
    await harness.run(definition, { journal });
    harness.started.length = 0;
    expect(await harness.run(definition, { journal, feedback: 'again', rejected: true })).toMatchObject({
      status: 'paused',
      method: 'count',
      output: 1,
    });
    expect(harness.started).toEqual(['count']);
    expect(await harness.run(definition, { journal, feedback: 'ok' })).toMatchObject({
      status: 'completed',
      result: { output: 1, feedback: 'ok' },
    });
  });

  it('keeps routing by the feedback for a method with emit, whatever the reviewer approved', async () => {
    const journal = new MemoryFlowJournal();
    await harness.run(flow(reviewFlow), { journal });
    harness.started.length = 0;
    expect(
      await harness.run(flow(reviewFlow), { journal, feedback: 'approved', rejected: true }),
    ).toMatchObject({ status: 'completed', result: 'published: A draft (checked) / approved' });
    expect(harness.started).toEqual(['review', 'publish']);
  });
});

describe('outcome classification', () => {
  const emit = ['approved', 'rejected', 'needs_work'];
  const model = () =>
    createModelResolver({
      env: { OPENAI_BASE_URL: harness.fake.url, OPENAI_API_KEY: 'sk-test' },
      baseDir: import.meta.dirname,
      timeoutMs: 10_000,
      retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 2 },
    })(testModel);

  it('uses default_outcome, else the first outcome, for empty feedback', async () => {
    expect(
      await feedbackOutcome({ feedback: '', emit, defaultOutcome: 'needs_work', model: undefined }),
    ).toBe('needs_work');
    expect(await feedbackOutcome({ feedback: '', emit, defaultOutcome: undefined, model: undefined })).toBe(
      'approved',
    );
    expect(
      await feedbackOutcome({ feedback: 'x', emit: undefined, defaultOutcome: undefined, model: undefined }),
    ).toBeNull();
  });

  it('matches a plain answer case-insensitively when the answer is not JSON', async () => {
    harness.fake.respondWith(() => ({ content: 'Rejected' }));
    expect(
      await feedbackOutcome({ feedback: 'no way', emit, defaultOutcome: undefined, model: model() }),
    ).toBe('rejected');
  });

  it('falls back to a plain call, taking the longest outcome it names, when the structured call fails', async () => {
    harness.fake.enqueue(
      { status: 400, errorMessage: 'response_format unsupported' },
      { content: 'I think it needs_work, not rejected.' },
    );
    expect(await feedbackOutcome({ feedback: 'meh', emit, defaultOutcome: undefined, model: model() })).toBe(
      'needs_work',
    );
  });

  it('falls back to the first outcome when the model names none or fails', async () => {
    harness.fake.respondWith(() => ({ content: 'no idea' }));
    expect(await feedbackOutcome({ feedback: 'hmm', emit, defaultOutcome: undefined, model: model() })).toBe(
      'approved',
    );
  });
});
