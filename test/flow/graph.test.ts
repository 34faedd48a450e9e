import { describe, expect, it } from 'vitest';
import { flow, useFlowHarness } from './flow-harness.ts';

const harness = useFlowHarness();

describe('start and listen', () => {
  it('runs a chain and returns the last output (simple chain parity)', async () => {
    const definition = flow(`
name: Chain
methods:
  begin: {start: true, do: {call: expression, expr: "'a'"}}
  middle: {listen: begin, do: {call: expression, expr: "outputs.begin + 'b'"}}
  finish: {listen: middle, do: {call: expression, expr: "outputs.middle + 'c'"}}
`);
    const outcome = await harness.run(definition);
    expect(outcome).toMatchObject({ status: 'completed', result: 'abc' });
    expect(harness.started).toEqual(['begin', 'middle', 'finish']);
  });

  it('runs every unconditional start, and conditional starts only when there is none', async () => {
    const both = flow(`
name: Starts
methods:
  one: {start: true, do: {call: expression, expr: "1"}}
  two: {start: true, do: {call: expression, expr: "2"}}
  later: {start: again, do: {call: expression, expr: "3"}}
`);
    await harness.run(both);
    expect([...harness.started].sort()).toEqual(['one', 'two']);
    harness.started.length = 0;
    const conditional = flow(`
name: OnlyConditional
methods:
  later: {start: again, do: {call: expression, expr: "3"}}
`);
    expect(await harness.run(conditional)).toMatchObject({ result: 3 });
  });

  it('waits for every branch of an and (and/or merge parity)', async () => {
    const definition = flow(`
name: Merge
methods:
  begin: {start: true, do: {call: expression, expr: "'go'"}}
  left: {listen: begin, do: {call: expression, expr: "'L'"}}
  right: {listen: begin, do: {call: expression, expr: "'R'"}}
  joined: {listen: {and: [left, right]}, do: {call: expression, expr: "outputs.left + outputs.right"}}
  either: {listen: {or: [joined, never]}, do: {call: expression, expr: "'either:' + outputs.joined"}}
`);
    const outcome = await harness.run(definition);
    expect(outcome).toMatchObject({ status: 'completed', result: 'either:LR' });
    expect(harness.started.filter((name) => name === 'joined')).toHaveLength(1);
  });

  it('fires a multi-event or listener once across parallel starts', async () => {
    const definition = flow(`
name: OrOnce
methods:
  a: {start: true, do: {call: expression, expr: "'a'"}}
  b: {start: true, do: {call: expression, expr: "'b'"}}
  c: {listen: {or: [a, b]}, do: {call: expression, expr: "'c'"}}
`);
    await harness.run(definition);
    expect(harness.started.filter((name) => name === 'c')).toHaveLength(1);
  });

  it('supports nested and/or conditions', async () => {
    const definition = flow(`
name: Nested
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  validated: {listen: begin, do: {call: expression, expr: "2"}}
  processed: {listen: begin, do: {call: expression, expr: "3"}}
  done: {listen: {or: [{and: [validated, processed]}, nothing]}, do: {call: expression, expr: "outputs.validated + outputs.processed"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 5 });
  });

  it('re-triggers a conditional start only by router outcomes, never by a method completing', async () => {
    const definition = flow(`
name: ConditionalStart
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  on_name: {start: begin, do: {call: expression, expr: "'by name'"}}
  decide: {listen: begin, router: true, do: {call: expression, expr: "'go'"}}
  on_outcome: {start: go, do: {call: expression, expr: "'by outcome'"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 'by outcome' });
    expect(harness.started).not.toContain('on_name');
  });

  it('runs nothing and returns null for a flow without methods', async () => {
    expect(await harness.run(flow('name: Empty'))).toMatchObject({ status: 'completed', result: null });
  });
});

describe('routers', () => {
  const route = (score: number) =>
    flow(`
name: Route
state: {type: dict, default: {score: ${score}}}
methods:
  begin: {start: true, do: {call: expression, expr: "state.score"}}
  decide:
    listen: begin
    router: true
    emit: [high, low]
    do: {call: expression, expr: "state.score >= 80 ? 'high' : 'low'"}
  on_high: {listen: high, do: {call: expression, expr: "'qualified'"}}
  on_low: {listen: low, do: {call: expression, expr: "'nurture'"}}
  after_decide: {listen: decide, do: {call: expression, expr: "'decided'"}}
`);

  it('routes each label to its listener (router label parity)', async () => {
    expect(await harness.run(route(90))).toMatchObject({ result: 'qualified' });
    expect(harness.started).toContain('after_decide');
    expect(harness.started).not.toContain('on_low');
    harness.started.length = 0;
    expect(await harness.run(route(10))).toMatchObject({ result: 'nurture' });
    expect(harness.started).not.toContain('on_high');
  });

  it('routes a falsy result as its text and a boolean as Python writes it', async () => {
    const definition = flow(`
name: Falsy
methods:
  decide: {start: true, router: true, do: {call: expression, expr: "0"}}
  zero: {listen: "0", do: {call: expression, expr: "'zero'"}}
  check: {listen: zero, router: true, do: {call: expression, expr: "false"}}
  no: {listen: "False", do: {call: expression, expr: "'python false'"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 'python false' });
  });

  it('ends a branch silently on an outcome nobody listens to, returning the router output', async () => {
    const definition = flow(`
name: Unmatched
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  decide: {listen: begin, router: true, emit: ["yes"], do: {call: expression, expr: "'Yes'"}}
  on_yes: {listen: "yes", do: {call: expression, expr: "'never'"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 'Yes' });
    expect(harness.started).not.toContain('on_yes');
  });

  it('loops through a conditional start until the router says done (cyclic flow parity)', async () => {
    const definition = flow(`
name: Loop
methods:
  step: {start: retry, do: {call: expression, expr: "1"}}
  decide:
    listen: step
    router: true
    do: {call: expression, expr: "size(outputs) >= 1 && has(outputs.decide) && outputs.decide == 'retry' ? 'done' : 'retry'"}
  finish: {listen: done, do: {call: expression, expr: "'finished'"}}
`);
    const outcome = await harness.run(definition);
    expect(outcome).toMatchObject({ result: 'finished' });
    expect(harness.started).toEqual(['step', 'decide', 'step', 'decide', 'finish']);
  });

  it('re-arms an or listener each time a router loop comes round', async () => {
    const definition = flow(`
name: Rearm
state: {type: dict, default: {rounds: 3}}
methods:
  begin: {start: true, do: {call: expression, expr: "0"}}
  work: {listen: {or: [begin, again]}, do: {call: expression, expr: "has(outputs.work) ? outputs.work + 1 : 1"}}
  decide: {listen: work, router: true, do: {call: expression, expr: "outputs.work < state.rounds ? 'again' : 'stop'"}}
  stop_here: {listen: stop, do: {call: expression, expr: "outputs.work"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 3 });
    expect(harness.started.filter((name) => name === 'work')).toHaveLength(3);
  });

  it('stops a loop at max_method_calls with crewAI message', async () => {
    const definition = flow(`
name: Capped
config: {max_method_calls: 2}
methods:
  begin: {start: true, do: {call: expression, expr: "0"}}
  work: {listen: {or: [begin, again]}, do: {call: expression, expr: "1"}}
  decide: {listen: work, router: true, do: {call: expression, expr: "'again'"}}
`);
    await expect(harness.run(definition)).rejects.toThrow(
      "Method 'work' has been called 2 times in this flow execution",
    );
  });
});

describe('more topologies', () => {
  it('joins a diamond once both sides are done', async () => {
    const definition = flow(`
name: Diamond
methods:
  top: {start: true, do: {call: expression, expr: "1"}}
  left: {listen: top, do: {call: expression, expr: "outputs.top + 1"}}
  right: {listen: top, do: {call: expression, expr: "outputs.top + 2"}}
  bottom: {listen: {and: [left, right]}, do: {call: expression, expr: "outputs.left + outputs.right"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 5 });
    expect(harness.started.filter((name) => name === 'bottom')).toHaveLength(1);
  });

  it('chains routers: one router outcome triggers the next router', async () => {
    const definition = flow(`
name: Cascade
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  first: {listen: begin, router: true, do: {call: expression, expr: "'stage_two'"}}
  second: {listen: stage_two, router: true, do: {call: expression, expr: "'stage_three'"}}
  last: {listen: stage_three, do: {call: expression, expr: "'end of cascade'"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 'end of cascade' });
    expect(harness.started).toEqual(['begin', 'first', 'second', 'last']);
  });

  it('runs every router of one trigger, in definition order', async () => {
    const definition = flow(`
name: TwoRouters
methods:
  begin: {start: true, do: {call: expression, expr: "1"}}
  route_a: {listen: begin, router: true, do: {call: expression, expr: "'a_path'"}}
  route_b: {listen: begin, router: true, do: {call: expression, expr: "'b_path'"}}
  on_a: {listen: a_path, do: {call: expression, expr: "'a'"}}
  on_b: {listen: b_path, do: {call: expression, expr: "'b'"}}
`);
    await harness.run(definition);
    expect(harness.started.indexOf('route_a')).toBeLessThan(harness.started.indexOf('route_b'));
    expect(harness.started).toEqual(expect.arrayContaining(['on_a', 'on_b']));
  });

  it('lets only the chosen outcome run (exclusive router events)', async () => {
    const definition = flow(`
name: Exclusive
methods:
  decide: {start: true, router: true, do: {call: expression, expr: "'left'"}}
  left_path: {listen: left, do: {call: expression, expr: "'L'"}}
  right_path: {listen: right, do: {call: expression, expr: "'R'"}}
  after_either: {listen: {or: [left_path, right_path]}, do: {call: expression, expr: "has(outputs.right_path)"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: false });
    expect(harness.started).not.toContain('right_path');
  });

  it('an and needs all its events again after it fires', async () => {
    const definition = flow(`
name: AndAgain
methods:
  begin: {start: true, do: {call: expression, expr: "0"}}
  a: {listen: {or: [begin, again]}, do: {call: expression, expr: "1"}}
  b: {listen: a, do: {call: expression, expr: "2"}}
  joined: {listen: {and: [a, b]}, do: {call: expression, expr: "has(outputs.joined) ? outputs.joined + 1 : 1"}}
  decide: {listen: joined, router: true, do: {call: expression, expr: "outputs.joined < 2 ? 'again' : 'stop'"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 'stop' });
    expect(harness.started.filter((name) => name === 'joined')).toHaveLength(2);
  });
});

describe('failures', () => {
  it('fails the flow on a failing method and runs nothing downstream', async () => {
    const definition = flow(`
name: Fails
methods:
  begin: {start: true, do: {call: expression, expr: "1/0"}}
  after: {listen: begin, do: {call: expression, expr: "1"}}
`);
    await expect(harness.run(definition)).rejects.toThrow("failed to evaluate CEL expression '1/0'");
    expect(harness.started).toEqual(['begin']);
  });
});
