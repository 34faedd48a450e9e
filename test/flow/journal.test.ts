import { describe, expect, it } from 'vitest';
import type { FlowJournalEntry } from '../../src/flow/flow-journal.ts';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { pendingReview } from '../../src/flow/run-flow.ts';
import { flow, testModel, useFlowHarness } from './flow-harness.ts';

const harness = useFlowHarness();

const agent = (input: string) =>
  `{call: agent, with: {role: Writer, goal: Write, backstory: Writes., llm: ${testModel}, input: "${input}"}}`;

const twoAgents = `
name: TwoAgents
methods:
  first: {start: true, do: ${agent('first step')}}
  second: {listen: first, do: ${agent('second step')}}
  third: {listen: second, do: {call: expression, expr: "outputs.first.raw + ' then ' + outputs.second.raw"}}
`;

/** A journal holding the first `count` entries of another: a run cut short after them. */
function cutAfter(entries: readonly FlowJournalEntry[], count: number): MemoryFlowJournal {
  const journal = new MemoryFlowJournal();
  for (const entry of entries.slice(0, count)) void journal.append(entry);
  return journal;
}

describe('the journal', () => {
  it('records the start, every completed method and its bookkeeping', async () => {
    harness.fake.respondWith((request) => ({
      content: String(request.body.messages.at(-1).content).includes('first step') ? 'one' : 'two',
    }));
    const journal = new MemoryFlowJournal();
    expect(await harness.run(flow(twoAgents), { journal })).toMatchObject({ result: 'one then two' });
    expect(
      journal.recorded.map((entry) =>
        entry.kind === 'flow-started' ? entry.kind : `${entry.kind}:${entry.method}`,
      ),
    ).toEqual([
      'flow-started',
      'method-completed:first',
      'method-completed:second',
      'method-completed:third',
    ]);
    const last = journal.recorded.at(-1);
    expect(last?.kind === 'method-completed' && last.bookkeeping).toMatchObject({
      state: { id: 'state-1' },
      outputs: [{ method: 'first' }, { method: 'second' }, { method: 'third', output: 'one then two' }],
      callCounts: { second: 1, third: 1 },
    });
  });

  it('resumes a run cut short without running its completed methods again', async () => {
    harness.fake.respondWith((request) => ({
      content: String(request.body.messages.at(-1).content).includes('first step') ? 'one' : 'two',
    }));
    const full = new MemoryFlowJournal();
    await harness.run(flow(twoAgents), { journal: full });
    expect(harness.fake.requests).toHaveLength(2);
    // The process stopped once `first` was recorded: the run goes on from `second`.
    const journal = cutAfter(full.recorded, 2);
    harness.started.length = 0;
    expect(await harness.run(flow(twoAgents), { journal })).toMatchObject({
      status: 'completed',
      result: 'one then two',
    });
    expect(harness.started).toEqual(['second', 'third']);
    expect(harness.fake.requests).toHaveLength(3);
  });

  it('keeps the state of the first start, whatever inputs come with a resume', async () => {
    const definition = flow(
      'name: S\nstate: {type: dict, default: {topic: a}}\nmethods:\n  m: {start: true, do: {call: expression, expr: "state.topic"}}',
    );
    const journal = new MemoryFlowJournal();
    await harness.run(definition, { journal, inputs: { topic: 'first' } });
    const again = cutAfter(journal.recorded, 1);
    expect(await harness.run(definition, { journal: again, inputs: { topic: 'second' } })).toMatchObject({
      result: 'first',
    });
  });

  it('does not run the action of a paused method again on resume', async () => {
    harness.fake.respondWith(() => ({ content: 'draft text' }));
    const definition = flow(`
name: Paused
methods:
  write: {start: true, do: ${agent('write it')}, human_feedback: {message: Good?, emit: [ok, redo], llm: ${testModel}}}
  done: {listen: ok, do: {call: expression, expr: "outputs.write.output.raw"}}
`);
    const journal = new MemoryFlowJournal();
    expect(await harness.run(definition, { journal })).toMatchObject({
      status: 'paused',
      output: { raw: 'draft text' },
    });
    expect(pendingReview(journal.recorded)).toMatchObject({ method: 'write', call: 1 });
    expect(harness.fake.requests).toHaveLength(1);
    // A crash while paused: running again pauses again at the same place, without a model call.
    expect(await harness.run(definition, { journal })).toMatchObject({ status: 'paused', method: 'write' });
    expect(await harness.run(definition, { journal, feedback: 'ok' })).toMatchObject({
      status: 'completed',
      result: 'draft text',
    });
    expect(harness.fake.requests).toHaveLength(1);
    expect(pendingReview(journal.recorded)).toBeUndefined();
  });

  it('replays a loop: each execution of a method is recorded and replayed by its number', async () => {
    const definition = flow(`
name: Loop
methods:
  begin: {start: true, do: {call: expression, expr: "0"}}
  work: {listen: {or: [begin, again]}, do: {call: expression, expr: "has(outputs.work) ? outputs.work + 1 : 1"}}
  decide: {listen: work, router: true, do: {call: expression, expr: "outputs.work < 3 ? 'again' : 'stop'"}}
  finish: {listen: stop, do: {call: expression, expr: "outputs.work"}}
`);
    const full = new MemoryFlowJournal();
    await harness.run(definition, { journal: full });
    const journal = cutAfter(full.recorded, 5);
    harness.started.length = 0;
    expect(await harness.run(definition, { journal })).toMatchObject({ result: 3 });
    // Recorded: begin, work#1, decide#1, work#2; what follows runs.
    expect(harness.started).toEqual(['decide', 'work', 'decide', 'finish']);
  });
});

describe('racing branches', () => {
  it('lets the first of two branches feeding one or listener win and cancels the other', async () => {
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let slowArrived: (() => void) | undefined;
    const slowSent = new Promise<void>((resolve) => (slowArrived = resolve));
    // The fast branch answers once the slow one's call is in flight; the slow one is held until the test ends.
    harness.fake.respondWith((request) => {
      if (!String(request.body.messages.at(-1).content).includes('slow'))
        return { content: 'fast answer', heldUntil: slowSent };
      slowArrived?.();
      return { content: 'slow answer', heldUntil: held };
    });
    const definition = flow(`
name: Race
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  fast: {listen: begin, do: ${agent('fast')}}
  slow: {listen: begin, do: ${agent('slow')}}
  winner: {listen: {or: [fast, slow]}, do: {call: expression, expr: "has(outputs.slow) ? 'slow' : outputs.fast.raw"}}
`);
    const journal = new MemoryFlowJournal();
    const outcome = await harness.run(definition, { journal });
    release?.();
    expect(outcome).toMatchObject({ result: 'fast answer' });
    expect(
      journal.recorded.some((entry) => entry.kind === 'method-completed' && entry.method === 'slow'),
    ).toBe(false);
    // The run finished while the slow branch's model call was still held: it was cancelled, not awaited.
    expect(harness.fake.requests).toHaveLength(2);
  });

  it('fails the flow at the first failing sibling without waiting for the others', async () => {
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    harness.fake.respondWith(() => ({ content: 'late', heldUntil: held }));
    const definition = flow(`
name: SiblingFails
methods:
  begin: {start: true, do: {call: expression, expr: "0"}}
  slow: {listen: begin, do: ${agent('slow')}}
  broken: {listen: begin, do: {call: expression, expr: "1 / outputs.begin"}}
  after_slow: {listen: slow, do: {call: expression, expr: "1"}}
`);
    const journal = new MemoryFlowJournal();
    await expect(harness.run(definition, { journal })).rejects.toThrow('divide by zero');
    release?.();
    expect(harness.started).not.toContain('after_slow');
    expect(
      journal.recorded.some((entry) => entry.kind === 'method-completed' && entry.method === 'slow'),
    ).toBe(false);
  });

  it('does not race branches that something else also listens to', async () => {
    const definition = flow(`
name: NoRace
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  a: {listen: begin, do: {call: expression, expr: "'a'"}}
  b: {listen: begin, do: {call: expression, expr: "'b'"}}
  either: {listen: {or: [a, b]}, do: {call: expression, expr: "1"}}
  both: {listen: {and: [a, b]}, do: {call: expression, expr: "outputs.a + outputs.b"}}
`);
    const outcome = await harness.run(definition);
    expect(harness.started).toContain('both');
    expect(harness.started.filter((name) => name === 'either')).toHaveLength(1);
    expect(outcome.status).toBe('completed');
  });
});
