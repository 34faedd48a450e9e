import { describe, expect, it } from 'vitest';
import { compileCel, eachStepRoots, flowRoots } from '../../src/flow/cel-expression.ts';
import { fromCel } from '../../src/flow/cel-values.ts';
import { parseTemplate, renderTemplate } from '../../src/flow/template.ts';
import { flow, useFlowHarness } from './flow-harness.ts';

const data = {
  state: { n: 3, ok: true, d: { a: 1 }, limit: 2, topic: 'AI', name: null, ticket_id: 123, f: 2.5 },
  outputs: { begin: 'crewAI', rows: [1, 2] },
};

function render(value: string, context: object = data): unknown {
  return renderTemplate(parseTemplate(value, 'methods.m.do.with.value', flowRoots), context);
}

describe('templates', () => {
  it('renders an expression with surrounding text', () => {
    expect(render('Topic: ${state.topic}!')).toBe('Topic: AI!');
  });

  it('renders adjacent expressions', () => {
    expect(render('${state.topic}${state.n}')).toBe('AI3');
  });

  it('renders non-string values as Python json.dumps', () => {
    expect(render('n=${state.n}; ok=${state.ok}; d=${state.d}')).toBe('n=3; ok=true; d={"a": 1}');
    expect(render('rows=${outputs.rows} f=${state.f} x=${2.0}')).toBe('rows=[1, 2] f=2.5 x=2.0');
  });

  it('renders null as an empty string', () => {
    expect(render('Ticket ID: ${state.ticket_id}; Subject: ${state.name}')).toBe('Ticket ID: 123; Subject: ');
  });

  it('keeps the type of a whole expression, whitespace around it dropped', () => {
    expect(render('${state.limit}')).toBe(2);
    expect(render('  ${state.d} ')).toEqual({ a: 1 });
    expect(render('${[1, state.ok]}')).toEqual([1, true]);
  });

  it('does not end a segment at braces inside string literals or map literals', () => {
    expect(render("${'a}b'}")).toBe('a}b');
    expect(render("${ {'k': 'v'}.k }")).toBe('v');
    expect(render('${ {"k": {"j": "}"}} }')).toEqual({ k: { j: '}' } });
  });

  it('keeps plain dollar signs and writes a literal ${ through a CEL string', () => {
    expect(render('costs $5')).toBe('costs $5');
    expect(render("${'${'}x")).toBe('${x');
  });

  it('renders the latest output by method name, with CEL +', () => {
    expect(render("${outputs.begin + ' agents'}")).toBe('crewAI agents');
  });

  it.each([
    ['cost ${state.a', 'unterminated ${...} expression in'],
    ['x ${} y', 'empty CEL expression in'],
    ['a ${foo.bar} b', "unknown CEL root at methods.m.do.with.value: 'foo'"],
    ["a ${'open}", 'unterminated or invalid ${...} expression in'],
    ['${state.a +}', 'invalid CEL expression at methods.m.do.with.value'],
  ])('rejects %s at load', (value, message) => {
    expect(() => render(value)).toThrow(message);
  });

  it('numbers the expression in messages when a string holds several', () => {
    expect(() => render('${state.a} ${nope}')).toThrow('methods.m.do.with.value (expression 2)');
  });
});

describe('CEL', () => {
  const evaluate = (source: string, context: object = data) =>
    fromCel(compileCel(source, 'expr', flowRoots).evaluate(context));

  it('divides ints as ints and keeps doubles', () => {
    expect(evaluate('7 / 2')).toBe(3);
    expect(evaluate('7.0 / 2.0')).toBe(3.5);
    expect(evaluate('state.n / 2')).toBe(1);
  });

  it('reports a missing key, a bad overload and division by zero as evaluation failures', () => {
    expect(() => evaluate('state.missing')).toThrow("failed to evaluate CEL expression 'state.missing'");
    expect(() => evaluate("'a' + 1")).toThrow('failed to evaluate');
    expect(() => evaluate('1 / 0')).toThrow('divide by zero');
  });

  it.each(["{'a': 1/0}", "{'a': 1, 'b': state.missing}", "{'a': {'b': 1/0}}", "{'a': [1/0]}"])(
    'raises for an error inside a literal: %s',
    (source) => {
      expect(() => evaluate(source)).toThrow('failed to evaluate');
    },
  );

  it('keeps errors that && and || short-circuit away', () => {
    expect(evaluate('true || 1/0 == 1')).toBe(true);
    expect(evaluate('false && state.missing')).toBe(false);
  });

  it('guards a method that has not run with has()', () => {
    expect(evaluate('has(outputs.never) ? 1 : 0')).toBe(0);
  });

  it('binds macro variables without taking them for roots', () => {
    expect(evaluate('outputs.rows.map(r, r * 2)')).toEqual([2, 4]);
    expect(evaluate('outputs.rows.exists(r, r == 2)')).toBe(true);
    expect(() => compileCel('item.x', 'methods.m.do.in', flowRoots)).toThrow(
      "unknown CEL root at methods.m.do.in: 'item'",
    );
    expect(compileCel('item.x', 'if', eachStepRoots).source).toBe('item.x');
  });

  it('refuses an empty expression with crewAI message', () => {
    expect(() => compileCel('  ', 'methods.m.do.expr', flowRoots)).toThrow(
      'empty CEL expression at methods.m.do.expr. Provide a CEL expression such as state.topic or outputs.step_name.',
    );
  });
});

describe('expression actions', () => {
  const harness = useFlowHarness();

  it('accepts the ${…} marker around raw CEL fields', async () => {
    const definition = flow(`
name: Markers
state: {type: dict, default: {rows: [1, 2, 3]}}
methods:
  begin: {start: true, do: {call: expression, expr: "\${state.rows.filter(r, r > 1)}"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: [2, 3] });
  });

  it('reports an invalid CEL expression and an unknown root at load', () => {
    expect(() =>
      flow('name: X\nmethods:\n  m: {start: true, do: {call: expression, expr: "state.a +"}}'),
    ).toThrow("flow.yaml (methods.m.do): invalid CEL expression at methods.m.do.expr: 'state.a +'");
    expect(() =>
      flow('name: X\nmethods:\n  m: {start: true, do: {call: expression, expr: "inputs.a"}}'),
    ).toThrow("unknown CEL root at methods.m.do.expr: 'inputs'; allowed roots: outputs, state.");
  });
});
