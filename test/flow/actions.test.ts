import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load-flow.ts';
import type { RecordedRequest } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';
import { flow, testModel, useFlowHarness } from './flow-harness.ts';

const harness = useFlowHarness();

/** Everything the model was sent in one request, as one text. */
function promptOf(request: RecordedRequest): string {
  return (request.body.messages as { content: string }[]).map((message) => message.content).join('\n');
}

const agentWith = (input: string) =>
  `{call: agent, with: {role: Analyst, goal: Answer questions, backstory: Knows things., llm: ${testModel}, input: "${input}"}}`;

describe('agent actions', () => {
  it('runs an inline agent on its rendered input and exposes its output as crewAI does', async () => {
    harness.fake.respondWith(() => ({ content: 'Ticket answered.' }));
    const definition = flow(`
name: Support
state: {type: dict, default: {ticket_id: 123, subject: null}}
methods:
  answer: {start: true, do: ${agentWith('Ticket ID: ${state.ticket_id}; Subject: ${state.subject}')}}
  report: {listen: answer, do: {call: expression, expr: "outputs.answer.raw + ' by ' + outputs.answer.agent_role"}}
`);
    const outcome = await harness.run(definition);
    expect(outcome).toMatchObject({ result: 'Ticket answered. by Analyst' });
    expect(promptOf(harness.fake.requests[0]!)).toContain('Ticket ID: 123; Subject:');
    expect(promptOf(harness.fake.requests[0]!)).toContain('Analyst');
  });

  it("sends the model what crewAI's Agent.kickoff sends: the persona, then the input as the task with no expected output", async () => {
    harness.fake.respondWith(() => ({ content: 'Ticket answered.' }));
    const definition = flow(`
name: Support
state: {type: dict, default: {ticket_id: 123}}
methods:
  answer: {start: true, do: ${agentWith('Ticket ID: ${state.ticket_id}')}}
`);
    await harness.run(definition);
    const messages = harness.fake.requests[0]!.body.messages as { role: string; content: string }[];
    expect(messages).toEqual([
      { role: 'system', content: 'You are Analyst. Knows things.\nYour personal goal is: Answer questions' },
      {
        role: 'user',
        content: 'Current task: Ticket ID: 123\n\nWhen you have what you need, reply with your final answer.',
      },
    ]);
  });

  it('fails the method when the input does not render to a string', async () => {
    const definition = flow(
      `name: S\nstate: {type: dict, default: {count: 2}}\nmethods:\n  a: {start: true, do: ${agentWith('${state.count}')}}`,
    );
    await expect(harness.run(definition)).rejects.toThrow('agent input must render to a string');
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('fails the method for an agent missing a required field, naming it', async () => {
    const definition = flow(
      `name: S\nmethods:\n  a: {start: true, do: {call: agent, with: {role: R, backstory: B, input: hi}}}`,
    );
    await expect(harness.run(definition)).rejects.toThrow(
      "methods.a.do.with.goal: missing required field 'goal'",
    );
  });

  it('runs agents inside each, one item after another', async () => {
    harness.fake.respondWith((request) => ({
      content: `seen ${/item-(\d)/.exec(promptOf(request))?.[1] ?? '?'}`,
    }));
    const definition = flow(`
name: EachAgent
state: {type: dict, default: {rows: [{text: item-1}, {text: item-2}]}}
methods:
  each_row:
    start: true
    do:
      call: each
      in: state.rows
      do:
        - name: look
          action: ${agentWith('${item.text}')}
        - name: raw
          action: {call: expression, expr: "outputs.look.raw"}
`);
    expect(await harness.run(definition)).toMatchObject({ result: ['seen 1', 'seen 2'] });
  });
});

describe('crew actions', () => {
  it('runs an inline crew with its inputs rendered, lists and strings alike', async () => {
    harness.fake.respondWith(() => ({ content: 'Research done.' }));
    const definition = flow(`
name: Inline
state: {type: dict, default: {topic: AI, primary_source: crewai.com}}
methods:
  research:
    start: true
    do:
      call: crew
      with:
        name: inline_research
        llm: ${testModel}
        agents:
          - name: researcher
            role: "Researcher of {topic}"
            goal: Research
            backstory: Knows things.
        tasks:
          - name: research_task
            description: "Research {topic} using {sources}"
            expected_output: "Findings about {topic}"
            agent: researcher
        inputs: {topic: Default topic}
      inputs:
        topic: "\${state.topic}"
        sources: ["\${state.primary_source}", "archive-\${state.topic}"]
  report: {listen: research, do: {call: expression, expr: "outputs.research.raw + '|' + outputs.research.tasks_output[0].name"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 'Research done.|research_task' });
    const prompt = promptOf(harness.fake.requests[0]!);
    expect(prompt).toContain('Research AI using ["crewai.com","archive-AI"]');
    expect(prompt).toContain('Researcher of AI');
  });

  it('accepts agents as a list of one-key mappings', async () => {
    harness.fake.respondWith(() => ({ content: 'ok' }));
    const definition = flow(`
name: OneKey
methods:
  c:
    start: true
    do: {call: crew, with: {llm: ${testModel}, agents: [{writer: {role: W, goal: G, backstory: B}}], tasks: [{description: D, expected_output: E, agent: writer}]}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: { raw: 'ok', json_dict: null } });
  });

  it('fails the method for an incomplete inline agent', async () => {
    const definition = flow(`
name: Incomplete
methods:
  c: {start: true, do: {call: crew, with: {agents: {writer: {role: W}}, tasks: [{description: D, expected_output: E, agent: writer}]}}}
`);
    await expect(harness.run(definition)).rejects.toThrow("missing required field 'goal'");
  });

  it('runs a JSONC crew from_declaration, relative to the flow file, its inputs as defaults', async () => {
    harness.fake.respondWith(() => ({ content: 'Declared crew answered.' }));
    const root = userCrew(join(import.meta.dirname, '../fixtures/flows/research-flow'));
    const definition = await loadFlow(root, { warn: () => {} });
    expect(await harness.run(definition)).toMatchObject({ result: { raw: 'Declared crew answered.' } });
    const prompt = promptOf(harness.fake.requests[0]!);
    expect(prompt).toContain('Research AI using the archive');
  });

  it('refuses a from_declaration path outside the flow directory', async () => {
    const root = userCrew(join(import.meta.dirname, '../fixtures/flows/research-flow'));
    const definition = await loadFlow(root, { warn: () => {} });
    const outside = {
      ...definition,
      methods: new Map(
        [...definition.methods].map(([name, method]) => [
          name,
          name === 'outside'
            ? { ...method, start: true as const }
            : { ...method, start: undefined, listen: 'never' },
        ]),
      ),
    };
    await expect(harness.run(outside)).rejects.toThrow(
      'crew declaration path must be within the flow definition directory',
    );
  });
});

describe('each', () => {
  it('resets step outputs between items and lets steps shadow flow outputs', async () => {
    const definition = flow(`
name: Each
state: {type: dict, default: {rows: [1, 2, 3]}}
methods:
  clean: {start: true, do: {call: expression, expr: "'flow'"}}
  loop:
    listen: clean
    do:
      call: each
      in: state.rows
      do:
        - name: first
          if: "has(outputs.clean) && item != 2"
          action: {call: expression, expr: "has(outputs.first) ? 'stale' : outputs.clean + string(item)"}
        - name: clean
          action: {call: expression, expr: "has(outputs.first) ? outputs.first : 'skipped'"}
`);
    // Item 3 sees the flow's `clean` again: item 1's step outputs are gone.
    expect(await harness.run(definition)).toMatchObject({ result: ['flow1', 'skipped', 'flow3'] });
  });

  it('keeps the previous output when a step is skipped, and gives [] for no items with listeners run once', async () => {
    const definition = flow(`
name: Skips
state: {type: dict, default: {rows: [5], none: []}}
methods:
  a:
    start: true
    do: {call: each, in: state.rows, do: [{name: x, action: {call: expression, expr: "item"}}, {name: y, if: "false", action: {call: expression, expr: "0"}}]}
  b: {listen: a, do: {call: each, in: state.none, do: [{name: x, action: {call: expression, expr: "item"}}]}}
  c: {listen: b, do: {call: expression, expr: "[outputs.a, outputs.b]"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: [[5], []] });
    expect(harness.started.filter((name) => name === 'c')).toHaveLength(1);
  });

  it.each([
    ['1', {}],
    ['"rows"', {}],
    ['state.rows', { rows: { a: 1 } }],
  ])('fails when in is not a list: %s', async (source, defaults) => {
    const definition = flow(
      `name: E\nstate: {type: dict, default: ${JSON.stringify(defaults)}}\nmethods:\n  a: {start: true, do: {call: each, in: '${source}', do: [{name: x, action: {call: expression, expr: "item"}}]}}`,
    );
    await expect(harness.run(definition)).rejects.toThrow('each.in must evaluate to an array');
  });

  it('fails when an if is not a boolean, and when a step fails', async () => {
    const notBoolean = flow(
      `name: E\nstate: {type: dict, default: {rows: [1]}}\nmethods:\n  a: {start: true, do: {call: each, in: state.rows, do: [{name: x, if: "item", action: {call: expression, expr: "item"}}]}}`,
    );
    await expect(harness.run(notBoolean)).rejects.toThrow('if expression must evaluate to a boolean');
    const failing = flow(
      `name: E\nstate: {type: dict, default: {rows: [0]}}\nmethods:\n  a: {start: true, do: {call: each, in: state.rows, do: [{name: x, action: {call: expression, expr: "1 / item"}}]}}\n  b: {listen: a, do: {call: expression, expr: "1"}}`,
    );
    await expect(harness.run(failing)).rejects.toThrow('divide by zero');
    expect(harness.started).not.toContain('b');
  });
});
