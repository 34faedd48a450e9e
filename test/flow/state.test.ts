import { describe, expect, it } from 'vitest';
import { checkFlowInputs, flowInputs, stateModel } from '../../src/flow/flow-state.ts';
import { flow, useFlowHarness } from './flow-harness.ts';

const harness = useFlowHarness();

const schemaFlow = `
name: Typed
state:
  type: json_schema
  json_schema:
    type: object
    required: [topic]
    properties:
      topic: {type: string, description: What to research}
      count: {type: integer, default: 2}
      ratio: {type: number}
      urgent: {type: boolean}
      tags: {type: array, items: {type: string}}
      level: {enum: [low, high]}
methods:
  begin: {start: true, do: {call: expression, expr: "state"}}
`;

describe('dict state', () => {
  it('is a copy of the default plus an id, with inputs merged in', async () => {
    const definition = flow(`
name: Dict
state: {type: dict, default: {topic: AI, nested: {a: 1}}}
methods:
  begin: {start: true, do: {call: expression, expr: "state"}}
`);
    const outcome = await harness.run(definition, { inputs: { extra: 5 } });
    expect(outcome).toMatchObject({ result: { topic: 'AI', nested: { a: 1 }, extra: 5, id: 'state-1' } });
    expect(definition.state?.default).toEqual({ topic: 'AI', nested: { a: 1 } });
    expect(flowInputs(definition)).toEqual(['topic', 'nested']);
  });

  it('keeps an id from the default, and takes an id input as the state id', async () => {
    const definition = flow(
      'name: D\nstate: {type: dict, default: {id: fixed}}\nmethods:\n  m: {start: true, do: {call: expression, expr: "state.id"}}',
    );
    expect(await harness.run(definition)).toMatchObject({ result: 'fixed' });
    expect(await harness.run(definition, { inputs: { id: 'chosen' } })).toMatchObject({ result: 'chosen' });
  });

  it('is dict state with only an id when the flow declares none, and for an unknown type', async () => {
    expect(
      await harness.run(flow('name: D\nmethods:\n  m: {start: true, do: {call: expression, expr: "state"}}')),
    ).toMatchObject({ result: { id: 'state-1' } });
    const unknown = flow(
      'name: D\nstate: {type: unknown}\nmethods:\n  m: {start: true, do: {call: expression, expr: "state"}}',
    );
    expect(unknown.unhonoured.join()).toContain('falls back to dict state');
  });
});

describe('json_schema state', () => {
  it('applies defaults and coerces inputs as pydantic lax mode does', async () => {
    const outcome = await harness.run(flow(schemaFlow), {
      inputs: { topic: 'AI', ratio: '0.5', urgent: 'yes', tags: ['x'], level: 'high' },
    });
    expect(outcome).toMatchObject({
      result: { topic: 'AI', count: 2, ratio: 0.5, urgent: true, tags: ['x'], level: 'high', id: 'state-1' },
    });
    expect((await harness.run(flow(schemaFlow), { inputs: { topic: 'AI', count: '5' } })).status).toBe(
      'completed',
    );
  });

  it('refuses invalid values and unknown keys', async () => {
    await expect(
      harness.run(flow(schemaFlow), { inputs: { topic: 'AI', count: 'not-a-number' } }),
    ).rejects.toThrow('Invalid inputs for structured state: count: Input should be a valid integer');
    await expect(harness.run(flow(schemaFlow), { inputs: { topic: 'AI', colour: 'red' } })).rejects.toThrow(
      'colour: Extra inputs are not permitted',
    );
    await expect(harness.run(flow(schemaFlow), { inputs: { topic: 3 } })).rejects.toThrow(
      'topic: Input should be a valid string',
    );
  });

  it('lets required fields come from kickoff inputs', async () => {
    await expect(harness.run(flow(schemaFlow), { inputs: {} })).rejects.toThrow('topic: Field required');
    expect(await harness.run(flow(schemaFlow), { inputs: { topic: 'T' } })).toMatchObject({
      status: 'completed',
    });
  });

  it('lists its inputs and reports missing, unknown and invalid ones before kickoff', () => {
    const definition = flow(schemaFlow);
    expect(flowInputs(definition)).toEqual(['topic', 'count', 'ratio', 'urgent', 'tags', 'level']);
    expect(checkFlowInputs(definition, { colour: 'red', count: 'x' })).toEqual({
      missing: ['topic'],
      unknown: ['colour'],
      invalid: [
        { field: 'count', message: 'Input should be a valid integer, unable to parse string as an integer' },
      ],
    });
    expect(checkFlowInputs(definition, { id: 'run-1' }).missing).toEqual([]);
  });

  it('uses the json_schema of a pydantic state whose class crewd cannot import', async () => {
    const definition = flow(`
name: P
state: {type: pydantic, ref: "pkg.state:S", json_schema: {type: object, properties: {topic: {type: string, default: x}}}}
methods:
  m: {start: true, do: {call: expression, expr: "state.topic"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 'x' });
    expect(definition.unhonoured.join()).toContain('state.ref');
  });

  it('falls back to dict state when the schema gives a type as a list, as crewAI does', () => {
    const warnings: string[] = [];
    const definition = flow(
      'name: L\nstate: {type: json_schema, json_schema: {type: object, properties: {a: {type: [string, "null"]}}}}\nmethods:\n  m: {start: true, do: {call: expression, expr: "state"}}',
    );
    expect(stateModel(definition, (message) => warnings.push(message)).kind).toBe('dict');
    expect(warnings.join()).toContain('Could not build a state model from the declared json_schema');
    expect(checkFlowInputs(definition, { anything: 1 })).toEqual({ missing: [], unknown: [], invalid: [] });
  });
});
