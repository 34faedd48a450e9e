import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFlow } from '../../src/flow/is-flow.ts';
import { loadFlow } from '../../src/flow/load-flow.ts';
import { flow } from './flow-harness.ts';

const minimal = 'name: Minimal\nmethods:\n  begin: {start: true, do: {call: expression, expr: "1"}}\n';

function directory(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'crewd-flow-')));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

const load = (target: string) => loadFlow(target, { warn: () => {} });

describe('loading', () => {
  it('accepts YAML and JSON files, and a directory holding flow.yaml', async () => {
    const root = directory({
      'flow.yaml': minimal,
      'other.json': JSON.stringify({
        name: 'Json',
        methods: { begin: { start: true, do: { call: 'expression', expr: '1' } } },
      }),
    });
    expect((await load(root)).name).toBe('Minimal');
    expect((await load(join(root, 'other.json'))).name).toBe('Json');
    expect(await isFlow(root)).toBe(true);
  });

  it('finds the flow a crewAI project declares, and refuses one outside the project', async () => {
    const root = directory({
      'pyproject.toml': '[project]\nname = "x"\n\n[tool.crewai]\ndefinition = "flows/main.yaml"\n',
      'flows/main.yaml': minimal,
    });
    expect((await load(root)).name).toBe('Minimal');
    const outside = directory({ 'elsewhere.yaml': minimal });
    const escaping = directory({ 'pyproject.toml': '[tool.crewai]\ndefinition = "link.yaml"\n' });
    symlinkSync(join(outside, 'elsewhere.yaml'), join(escaping, 'link.yaml'));
    await expect(load(escaping)).rejects.toThrow('must stay inside the project');
    const absolute = directory({
      'pyproject.toml': `[tool.crewai]\ndefinition = "${join(outside, 'elsewhere.yaml')}"\n`,
    });
    await expect(load(absolute)).rejects.toThrow('must be relative to the project');
    const missing = directory({ 'pyproject.toml': '[tool.crewai]\ndefinition = "nope.yaml"\n' });
    await expect(load(missing)).rejects.toThrow('does not exist');
  });

  it('rejects an empty file and contents that are not a mapping', async () => {
    const root = directory({ 'flow.yaml': '  \n' });
    await expect(load(root)).rejects.toThrow('Flow declaration file is empty');
    for (const text of ['[]', 'false', '0', 'null', '~']) {
      expect(() => flow(text)).toThrow('Flow declaration must contain a mapping');
    }
  });

  it('reads YAML 1.1 scalars as crewAI (PyYAML) does', () => {
    expect(() =>
      flow(
        'name: X\nmethods:\n  m: {start: true, router: true, emit: [ok, no], do: {call: expression, expr: "1"}}',
      ),
    ).toThrow('flow.yaml (methods.m.emit.1): Input should be a valid string');
  });
});

describe('validation', () => {
  it('requires a name and do, and refuses another schema', () => {
    expect(() => flow('methods: {}')).toThrow('flow.yaml (name): Field required');
    expect(() => flow('name: X\nmethods:\n  m: {start: true}')).toThrow(
      'flow.yaml (methods.m.do): Field required',
    );
    expect(() => flow('schema: crewai.flow/v2\nname: X')).toThrow('(schema)');
  });

  it('rejects invalid method names', () => {
    expect(() => flow('name: X\nmethods:\n  1bad: {start: true, do: {call: expression, expr: "1"}}')).toThrow(
      'Flow method names must match ^[A-Za-z_][A-Za-z0-9_]*$',
    );
  });

  it.each(['m', '{or: [a, m]}', '{and: [a, {or: [m]}]}'])(
    'rejects a method listening to itself: %s',
    (listen) => {
      expect(() =>
        flow(`name: X\nmethods:\n  m: {listen: ${listen}, do: {call: expression, expr: "1"}}`),
      ).toThrow(
        "references the handler name 'm'. A listener triggered by its own completion creates an infinite loop.",
      );
    },
  );

  it('accepts listeners of names nothing emits and routers without triggers, as crewAI does', () => {
    const definition = flow(
      'name: X\nmethods:\n  r: {router: true, start: false, do: {call: expression, expr: "1"}}\n  l: {listen: begni, do: {call: expression, expr: "1"}}',
    );
    expect([...definition.methods.keys()]).toEqual(['r', 'l']);
  });

  it('treats start: false as not a start and "true" quoted as a condition', () => {
    const definition = flow(
      'name: X\nmethods:\n  a: {start: false, do: {call: expression, expr: "1"}}\n  b: {start: "true", do: {call: expression, expr: "1"}}',
    );
    expect(definition.methods.get('a')?.start).toBeUndefined();
    expect(definition.methods.get('b')?.start).toBe('true');
  });

  it.each([
    ['{call: crew}', 'crew action requires exactly one of from_declaration or with'],
    ['{call: crew, with: {agents: {}, tasks: []}}', 'crew action requires inline agent definitions'],
    [
      '{call: crew, with: {agents: {a: {role: r}}, tasks: []}}',
      'crew action requires a non-empty tasks list',
    ],
    [
      '{call: crew, with: {agents: [{name: ""}], tasks: [{description: d}]}}',
      'agents[0].name must be a non-empty string',
    ],
    [
      '{call: crew, with: {agents: [1], tasks: [{description: d}]}}',
      'agents[0] must be an inline agent mapping',
    ],
    [
      '{call: crew, ref: "pkg:Crew", with: {agents: {a: {}}, tasks: [{}]}}',
      "Extra inputs are not permitted: 'ref'",
    ],
    ['{call: crew, from_declaration: crew.jsonc, inputs: [1]}', 'crew.inputs must be a mapping'],
    ['{call: agent, with: {role: r, goal: g, backstory: b, input: 3}}', 'agent.input must be a string'],
    [
      '{call: agent, with: {role: r, goal: g, backstory: b, input: x, settings: [1]}}',
      'agent.settings must be a mapping',
    ],
    ['{call: expression, expr: "1", if: "true"}', "Extra inputs are not permitted: 'if'"],
    ['{call: each, in: state.rows, do: []}', 'each.do must contain at least one step'],
    [
      '{call: each, in: state.rows, do: [{name: 1bad, action: {call: expression, expr: item}}]}',
      'each.do step names must match',
    ],
    [
      '{call: each, in: state.rows, do: [{name: same, action: {call: expression, expr: item}}, {name: same, action: {call: expression, expr: item}}]}',
      "each.do step names must be unique: 'same'",
    ],
    ['{call: each, in: state.rows, do: [{name: s}]}', 'Field required'],
    ['{call: each, in: state.rows, do: [{action: {call: expression, expr: item}}]}', 'Field required'],
    [
      '{call: each, in: state.rows, do: [{name: s, if: "true", then: [], action: {call: expression, expr: item}}]}',
      "Extra inputs are not permitted: 'then'",
    ],
    ['{call: each, in: state.rows, do: [{name: s, action: {call: each, in: item, do: []}}]}', 'nested each'],
    [
      '{call: each, in: item.rows, do: [{name: s, action: {call: expression, expr: item}}]}',
      "unknown CEL root at methods.m.do.in: 'item'",
    ],
  ])('rejects %s', (action, message) => {
    expect(() => flow(`name: X\nmethods:\n  m: {start: true, do: ${action}}`)).toThrow(message);
  });

  it.each([
    ['{call: code, ref: "pkg.mod:fn"}', 'code'],
    ['{ref: "pkg.mod:fn"}', 'code'],
    ['{call: tool, ref: "crewai_tools:SerperDevTool"}', 'tool'],
    ['{call: script, code: "return 1"}', 'script'],
    ['{call: each, in: state.rows, do: [{name: s, action: {call: code, ref: "a:b"}}]}', 'code'],
  ])('refuses the Python action %s without Python, naming the method', (action, call) => {
    expect(() => flow(`name: X\nmethods:\n  py_step: {start: true, do: ${action}}`)).toThrow(
      `(methods.py_step.do): method 'py_step' uses call: ${call}, which runs in the project's Python, and no Python is available`,
    );
  });

  it('refuses pydantic state without a schema, conversational flows and Python references', () => {
    expect(() => flow('name: X\nstate: {type: pydantic, ref: "a:B"}')).toThrow(
      '(state.type): state of type pydantic names a Python class',
    );
    expect(() => flow('name: X\nconversational: {}')).toThrow('conversational flows are not supported');
    expect(() =>
      flow(
        'name: X\nmethods:\n  m: {start: true, do: {call: agent, with: {role: r, goal: g, backstory: b, input: x, response_format: {python: "a.B"}}}}',
      ),
    ).toThrow('(methods.m.do.with.response_format)');
    expect(() =>
      flow(
        'name: X\nmethods:\n  m: {start: true, do: {call: agent, with: {from_repository: support, input: x}}}',
      ),
    ).toThrow('from_repository');
  });

  it('reports what crewAI ignores, and what crewd does not act on', () => {
    const warnings: string[] = [];
    const definition = flow(
      'name: X\ndiagnostics: []\npersist: {enabled: true, persistence: {persistence_type: SQLiteFlowPersistence}}\nconfig: {stream: true, colour: red}\nmethods:\n  m: {start: true, listens: x, emit: [a], do: {call: expression, expr: "1"}}\n  n: {do: {call: expression, expr: "1"}}',
      warnings,
    );
    expect(warnings.join('\n')).toContain('flow.yaml (diagnostics): crewAI ignores this key');
    expect(warnings.join('\n')).toContain('flow.yaml (config.colour)');
    expect(warnings.join('\n')).toContain('(methods.m.listens)');
    expect(warnings.join('\n')).toContain('[emit_without_router]');
    expect(warnings.join('\n')).toContain('(methods.n): has neither start nor listen');
    expect(definition.unhonoured.join('\n')).toContain('config.stream');
    // Flow-level persist is acted on (a kickoff naming a state id restores it); its backend is not.
    expect(definition.persist).toBe(true);
    expect(definition.unhonoured.join('\n')).toContain('persist.persistence: not acted on');
  });

  it('acts on flow-level persist only when it is enabled', () => {
    const method = 'methods:\n  m: {start: true, do: {call: expression, expr: "1"}}';
    expect(flow(`name: X\n${method}`).persist).toBe(false);
    expect(flow(`name: X\npersist: {}\n${method}`).persist).toBe(true);
    expect(flow(`name: X\npersist: {enabled: false}\n${method}`).persist).toBe(false);
  });

  it('makes a method with human_feedback outcomes a router on them', () => {
    const warnings: string[] = [];
    const definition = flow(
      'name: X\nmethods:\n  review: {start: true, emit: [x], do: {call: expression, expr: "1"}, human_feedback: {message: ok?, emit: [approved, rejected], default_outcome: maybe, llm: openai/fake-model}}',
      warnings,
    );
    expect(definition.methods.get('review')).toMatchObject({
      router: true,
      emit: undefined,
      humanFeedback: { emit: ['approved', 'rejected'] },
    });
    expect(warnings.join('\n')).toContain('[human_feedback_default_not_in_emit]');
  });

  it('rejects a state without type and extra state keys', () => {
    expect(() => flow('name: X\nstate: {default: {}}')).toThrow(
      "Unable to extract tag using discriminator 'type'",
    );
    expect(() => flow('name: X\nstate: {type: dict, ref: "a:b"}')).toThrow('(state');
    expect(() => flow('name: X\nstate: {type: dict, default: [1]}')).toThrow('(state');
  });
});

describe('YAML 1.1 as PyYAML reads it', () => {
  it('reads yes/no/on/off as booleans but y and n as text, and 1:30 as 90', () => {
    const definition = flow('name: X\nstate: {type: dict, default: {a: yes, b: off, c: y, d: n, e: 1:30}}');
    expect(definition.state?.default).toEqual({ a: true, b: false, c: 'y', d: 'n', e: 90 });
  });
});

describe('conditions crewAI only fails on when it runs', () => {
  it('rejects a YAML list as listen, and warns of a mapping without or/and', () => {
    expect(() => flow('name: X\nmethods:\n  m: {listen: [a, b], do: {call: expression, expr: "1"}}')).toThrow(
      '(methods.m.listen)',
    );
    const warnings: string[] = [];
    flow('name: X\nmethods:\n  m: {listen: {xor: [a, b]}, do: {call: expression, expr: "1"}}', warnings);
    expect(warnings.join()).toContain('(methods.m.listen): a condition needs an or or an and');
  });
});
