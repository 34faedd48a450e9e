import { describe, expect, it } from 'vitest';
import type { AgentDefinition, CrewDefinition, TaskDefinition } from '../domain/crew.ts';
import { CrewdError, MissingInputsError } from '../domain/errors.ts';
import {
  checkInputs,
  findPlaceholders,
  interpolate,
  renderAgent,
  renderTask,
  requiredInputs,
} from './placeholders.ts';

function agent(name: string, texts: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    name,
    role: 'Role',
    goal: 'Goal',
    backstory: 'Backstory',
    tools: [],
    maxIter: 20,
    allowDelegation: false,
    verbose: false,
    ...texts,
  };
}

function task(name: string, agentName: string, texts: Partial<TaskDefinition> = {}): TaskDefinition {
  return {
    name,
    description: 'Do it.',
    expectedOutput: 'Done.',
    agent: agentName,
    humanInput: false,
    ...texts,
  };
}

describe('findPlaceholders', () => {
  it('finds {identifier} placeholders in order, repeats included', () => {
    expect(findPlaceholders('{topic} in {current_year}, again {topic}; {_x1}')).toEqual([
      'topic',
      'current_year',
      'topic',
      '_x1',
    ]);
  });

  it('leaves JSON-like braces and spaced or malformed names alone', () => {
    expect(findPlaceholders('Answer as {"a": 1} or { a } or {1st} or {a-b} or {}')).toEqual([]);
  });
});

describe('interpolate', () => {
  it('replaces every occurrence with the input string as it is', () => {
    expect(interpolate('{topic}: all about {topic}', { topic: 'AI agents' })).toBe(
      'AI agents: all about AI agents',
    );
  });

  it('writes non-string values as JSON', () => {
    const text = interpolate('{year} {flag} {list} {object}', {
      year: 2025,
      flag: true,
      list: ['a', 'b'],
      object: { depth: 2 },
    });

    expect(text).toBe('2025 true ["a","b"] {"depth":2}');
  });

  it('leaves JSON examples in the text untouched while filling placeholders', () => {
    expect(interpolate('Return {"topic": "{topic}"} and { topic }', { topic: 'bees' })).toBe(
      'Return {"topic": "bees"} and { topic }',
    );
  });

  it('keeps placeholders without a value as written, and fills in an empty string', () => {
    expect(interpolate('{a}|{b}|{c}|{d}', { b: null, c: '', d: undefined })).toBe('{a}|{b}||{d}');
  });

  it('does not take values from the object prototype', () => {
    expect(interpolate('{constructor} {toString}', {})).toBe('{constructor} {toString}');
  });
});

describe('requiredInputs', () => {
  it('lists distinct names, agents in file order first, then tasks in file order', () => {
    const agents = [
      agent('researcher', { role: '{topic} researcher', goal: 'Cover {topic}', backstory: 'Since {since}' }),
      agent('writer', { role: '{audience} writer', backstory: 'Knows {topic}' }),
    ];
    const tasks = [
      task('research', 'researcher', {
        description: 'Find {topic} news from {year}',
        expectedOutput: '{count} items',
      }),
      task('write', 'writer', { description: 'Write for {audience} in {year}' }),
    ];

    expect(requiredInputs(agents, tasks)).toEqual(['topic', 'since', 'audience', 'year', 'count']);
  });

  it('reads role, goal and backstory in that order, then description and expected output', () => {
    const agents = [agent('a', { backstory: '{third}', goal: '{second}', role: '{first}' })];
    const tasks = [task('t', 'a', { expectedOutput: '{fifth}', description: '{fourth}' })];

    expect(requiredInputs(agents, tasks)).toEqual(['first', 'second', 'third', 'fourth', 'fifth']);
  });

  it('ignores JSON-like braces', () => {
    const tasks = [task('t', 'a', { expectedOutput: 'JSON like {"score": 1} about {topic}' })];

    expect(requiredInputs([agent('a')], tasks)).toEqual(['topic']);
  });
});

describe('checkInputs', () => {
  const crew = { requiredInputs: ['topic', 'current_year', 'audience'] };

  it('accepts inputs that supply every name, empty strings included', () => {
    expect(() =>
      checkInputs(crew, { topic: '', current_year: 2025, audience: 'all', extra: 1 }),
    ).not.toThrow();
  });

  it('lists every missing name in the crew order, counting null and undefined as missing', () => {
    let thrown: unknown;
    try {
      checkInputs(crew, { current_year: null, audience: undefined });
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(MissingInputsError);
    const error = thrown as MissingInputsError;
    expect(error.code).toBe('MISSING_INPUTS');
    expect(error.missingInputs).toEqual(['topic', 'current_year', 'audience']);
    expect(error.details).toEqual({ missing_inputs: ['topic', 'current_year', 'audience'] });
  });
});

describe('renderTask and renderAgent', () => {
  const writer = agent('writer', {
    role: '{topic} writer',
    goal: 'Explain {topic}',
    backstory: 'Since {year}',
  });
  const report = task('report', 'writer', {
    description: 'Write about {topic} as {"format": "md"}',
    expectedOutput: 'A report for {year}',
    context: [],
  });
  const crew: CrewDefinition = {
    name: 'crew',
    process: 'sequential',
    agents: new Map([['writer', writer]]),
    tasks: [report],
    requiredInputs: ['topic', 'year'],
  };

  it('fills the agent texts and leaves its settings alone', () => {
    expect(renderAgent(writer, { topic: 'bees', year: 2025 })).toEqual({
      ...writer,
      role: 'bees writer',
      goal: 'Explain bees',
      backstory: 'Since 2025',
    });
  });

  it('fills the task texts and renders its agent', () => {
    const rendered = renderTask(crew, report, { topic: 'bees', year: 2025 });

    expect(rendered.task).toEqual({
      ...report,
      description: 'Write about bees as {"format": "md"}',
      expectedOutput: 'A report for 2025',
    });
    expect(rendered.agent?.role).toBe('bees writer');
  });

  it('refuses a task whose agent the crew does not define', () => {
    expect(() => renderTask(crew, task('orphan', 'editor'), {})).toThrow(CrewdError);
  });
});
