/**
 * crewAI's own tests of declarative flows (lib/crewai/tests/test_flow_from_definition.py, 1.15.17), ported where the
 * engine supports them and not already ported under another name elsewhere in test/flow/. Each test is named after
 * the crewAI test it ports; Python fixtures run in the real python3 through the project's Python host.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flowFromText } from '../../src/flow/load-flow.ts';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { openFlowRuntime } from '../../src/flow/open-flow-runtime.ts';
import type { FlowRuntime } from '../../src/flow/open-flow-runtime.ts';
import { runFlow } from '../../src/flow/run-flow.ts';
import type { FlowOutcome } from '../../src/flow/run-flow.ts';
import { flow, useFlowHarness } from './flow-harness.ts';

/** The Python module the ported code, tool and script tests call, as crewAI's tests define their helpers. */
const stepsModule = `
from crewai.tools import BaseTool


def greet(self, name, punctuation="!"):
    return f"hello {name}{punctuation}"


def describe(self, **kwargs):
    return kwargs


def count_rows(self, rows):
    return len(rows)


class Adder:
    def __call__(self, a, b):
        return a + b


adder = Adder()


class EchoTool(BaseTool):
    name: str = "Echo"
    description: str = "Answers the inputs it is given."

    def _run(self, **kwargs):
        return kwargs


class UpperTool(BaseTool):
    name: str = "Upper"
    description: str = "Upper-cases a text."

    def _run(self, text: str) -> str:
        return text.upper()
`;

const python = {
  PATH: process.env.PATH ?? '',
  CREWD_PYTHON: 'python3',
  CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION: '1',
};

let opened: FlowRuntime | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/** Runs a flow that calls `flow_steps` in the real python3, from a directory outside the repository. */
async function runPython(yaml: string, inputs: Record<string, unknown> = {}): Promise<FlowOutcome> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'crewd-conformance-')));
  writeFileSync(join(dir, 'flow.yaml'), yaml);
  writeFileSync(join(dir, 'flow_steps.py'), stepsModule);
  opened = await openFlowRuntime({
    target: dir,
    env: python,
    warn: () => {},
    tools: { workspaceRoot: join(dir, 'workspaces'), crewdState: [] },
  });
  return runFlow({
    definition: opened.definition,
    journal: new MemoryFlowJournal(),
    inputs,
    dependencies: {
      models: opened.models,
      tools: opened.tools,
      defaultModel: undefined,
      executionId: 'conformance',
      newId: () => 'state-1',
      ...(opened.pythonActions === undefined ? {} : { pythonActions: opened.pythonActions }),
    },
  });
}

const loads = (yaml: string) => () => flowFromText(yaml, { warn: () => {}, acceptPythonActions: true });

describe('crewAI conformance: loading and construction', () => {
  const harness = useFlowHarness();

  it('test_flow_from_declaration_builds_runnable_flow', async () => {
    const definition = flow(`
schema: crewai.flow/v1
name: Runnable
methods:
  begin: {start: true, do: {call: expression, expr: "'started'"}}
  finish: {listen: begin, do: {call: expression, expr: "outputs.begin + ':done'"}}
`);
    expect(await harness.run(definition)).toMatchObject({ status: 'completed', result: 'started:done' });
  });

  it('test_non_dict_state_default_rejected_by_contract', () => {
    expect(loads('name: X\nstate: {type: dict, default: [1, 2]}')).toThrow('(state.default)');
  });

  it('test_expression_action_can_route_like_if_else', async () => {
    const definition = flow(`
name: Qualify
state: {type: dict, default: {score: 85}}
methods:
  classify:
    start: true
    router: true
    emit: [qualified, nurture]
    do: {call: expression, expr: "state.score >= 80 ? 'qualified' : 'nurture'"}
  sales: {listen: qualified, do: {call: expression, expr: "'to sales'"}}
  marketing: {listen: nurture, do: {call: expression, expr: "'to marketing'"}}
`);
    expect(await harness.run(definition)).toMatchObject({ result: 'to sales' });
    expect(harness.started).toEqual(['classify', 'sales']);
  });
});

describe('crewAI conformance: shapes refused at load', () => {
  it('test_agent_action_rejects_non_string_input_in_definition', () => {
    expect(
      loads(
        'name: X\nmethods:\n  m: {start: true, do: {call: agent, with: {role: r, goal: g, backstory: b, input: 3}}}',
      ),
    ).toThrow('agent.input must be a string');
  });

  it('test_crew_action_rejects_python_ref_field', () => {
    expect(
      loads('name: X\nmethods:\n  m: {start: true, do: {call: crew, ref: "pkg:Crew", inputs: {}}}'),
    ).toThrow("(methods.m.do): Extra inputs are not permitted: 'ref'");
  });

  it('test_crew_action_rejects_non_mapping_inputs_in_definition', () => {
    expect(
      loads(
        'name: X\nmethods:\n  m: {start: true, do: {call: crew, with: {agents: {a: {role: r, goal: g, backstory: b}}, tasks: [{description: d, expected_output: e, agent: a}]}, inputs: [1]}}',
      ),
    ).toThrow('crew.inputs must be a mapping');
  });

  it.each([
    ['cost ${state.a', 'unterminated ${...} expression'],
    ['x ${} y', 'empty CEL expression'],
    ['a ${foo.bar} b', 'unknown CEL root'],
  ])('test_tool_action_rejects_invalid_interpolated_inputs[%s]', (value, message) => {
    expect(
      loads(
        `name: X\nmethods:\n  m: {start: true, do: {call: tool, ref: "flow_steps:EchoTool", with: {v: "${value}"}}}`,
      ),
    ).toThrow(message);
  });

  it('test_tool_action_reports_invalid_cel_expression', () => {
    expect(
      loads(
        'name: X\nmethods:\n  m: {start: true, do: {call: tool, ref: "flow_steps:EchoTool", with: {v: "${state.}"}}}',
      ),
    ).toThrow('invalid CEL expression at methods.m.do.with.v');
  });

  it.each([
    ['[]', 'each.do must contain at least one step'],
    ['[{value: {call: expression, expr: item}}]', '(methods.m.do.do[0]'],
    ['[{name: 1bad, action: {call: expression, expr: item}}]', 'each.do step names must match'],
    ['[{name: missing_action}]', '(methods.m.do.do[0].action)'],
    ['[{action: {call: expression, expr: item}}]', '(methods.m.do.do[0].name)'],
    [
      '[{name: s, if: "true", then: [], action: {call: expression, expr: item}}]',
      "(methods.m.do.do[0]): Extra inputs are not permitted: 'then'",
    ],
    [
      '[{name: same, action: {call: expression, expr: item}}, {name: same, action: {call: expression, expr: item}}]',
      "each.do step names must be unique: 'same'",
    ],
  ])('test_each_action_validates_step_shape[%s]', (steps, message) => {
    expect(
      loads(`name: X\nmethods:\n  m: {start: true, do: {call: each, in: state.rows, do: ${steps}}}`),
    ).toThrow(message);
  });

  it('test_if_clauses_are_rejected_at_method_level', () => {
    expect(
      loads('name: X\nmethods:\n  m: {start: true, do: {call: expression, expr: "1", if: "true"}}'),
    ).toThrow('(methods.m.do.if)');
  });

  it('test_each_action_rejects_nested_each_actions', () => {
    expect(
      loads(
        'name: X\nmethods:\n  m: {start: true, do: {call: each, in: state.rows, do: [{name: inner, action: {call: each, in: item, do: []}}]}}',
      ),
    ).toThrow('(methods.m.do.do[0].action');
  });
});

describe('crewAI conformance: each and expressions at run time', () => {
  const harness = useFlowHarness();

  it.each([
    ['1', '{}'],
    ["'rows'", '{}'],
    ['state.rows', '{rows: {a: 1}}'],
  ])('test_each_action_rejects_non_list_inputs[%s]', async (items, defaults) => {
    const definition = flow(
      `name: X\nstate: {type: dict, default: ${defaults}}\nmethods:\n  m: {start: true, do: {call: each, in: "${items}", do: [{name: s, action: {call: expression, expr: item}}]}}`,
    );
    await expect(harness.run(definition)).rejects.toThrow('each.in must evaluate to an array');
  });

  it.each(["{'a': 1/0}", "{'a': 1, 'b': state.missing}", "{'a': {'b': 1/0}}", "{'a': [1/0]}"])(
    'test_expression_raises_for_cel_eval_error_returned_as_data[%s]',
    async (expr) => {
      const definition = flow(
        `name: X\nmethods:\n  m: {start: true, do: {call: expression, expr: "${expr}"}}`,
      );
      await expect(harness.run(definition)).rejects.toThrow('failed to evaluate CEL expression');
    },
  );

  it('test_expression_nested_cel_eval_error_reports_underlying_cause', async () => {
    const definition = flow(
      `name: X\nmethods:\n  m: {start: true, do: {call: expression, expr: "{'a': {'b': 1/0}}"}}`,
    );
    await expect(harness.run(definition)).rejects.toThrow('divide by zero');
  });
});

describe("crewAI conformance: code, tool and script actions in the project's Python", () => {
  it('test_code_action_renders_keyword_inputs', async () => {
    const outcome = await runPython(`
name: Code
state: {type: dict, default: {name: Ada}}
methods:
  hello: {start: true, do: {call: code, ref: "flow_steps:greet", with: {name: "\${state.name}", punctuation: "?"}}}
`);
    expect(outcome).toMatchObject({ result: 'hello Ada?' });
  });

  it('test_code_action_interpolates_strings_and_lists', async () => {
    const outcome = await runPython(`
name: Code
state: {type: dict, default: {topic: AI, source: crewai.com}}
methods:
  show:
    start: true
    do: {call: code, ref: "flow_steps:describe", with: {title: "News about \${state.topic}", sources: ["\${state.source}", "archive-\${state.topic}"], count: 2}}
`);
    expect(outcome).toMatchObject({
      result: { title: 'News about AI', sources: ['crewai.com', 'archive-AI'], count: 2 },
    });
  });

  it('test_code_action_supports_callable_instance_refs', async () => {
    const outcome = await runPython(`
name: Code
methods:
  add: {start: true, do: {call: code, ref: "flow_steps:adder", with: {a: 2, b: 3}}}
`);
    expect(outcome).toMatchObject({ result: 5 });
  });

  it('test_from_declaration_runs_tool_action_with_static_inputs', async () => {
    const outcome = await runPython(`
name: Tool
methods:
  shout: {start: true, do: {call: tool, ref: "flow_steps:UpperTool", with: {text: quiet}}}
`);
    expect(outcome).toMatchObject({ result: 'QUIET' });
  });

  it('test_tool_action_renders_cel_inputs_at_runtime', async () => {
    const outcome = await runPython(
      `
name: Tool
state: {type: dict}
methods:
  begin: {start: true, do: {call: expression, expr: "'crew'"}}
  shout: {listen: begin, do: {call: tool, ref: "flow_steps:UpperTool", with: {text: "\${outputs.begin} for \${state.topic}"}}}
`,
      { topic: 'tides' },
    );
    expect(outcome).toMatchObject({ result: 'CREW FOR TIDES' });
  });

  it('test_tool_action_preserves_whole_expression_value_types', async () => {
    const outcome = await runPython(`
name: Tool
state: {type: dict, default: {limit: 2, flags: {enabled: true}}}
methods:
  echo: {start: true, do: {call: tool, ref: "flow_steps:EchoTool", with: {count: "\${state.limit}", flags: " \${state.flags} ", text: "n=\${state.limit}"}}}
`);
    expect(outcome).toMatchObject({ result: { count: 2, flags: { enabled: true }, text: 'n=2' } });
  });

  it('test_tool_action_interpolates_values_inside_list_inputs', async () => {
    const outcome = await runPython(`
name: Tool
state: {type: dict, default: {a: x, b: 1}}
methods:
  echo: {start: true, do: {call: tool, ref: "flow_steps:EchoTool", with: {items: ["\${state.a}", "\${state.b}", "b=\${state.b}", {nested: "\${state.a}"}]}}}
`);
    expect(outcome).toMatchObject({ result: { items: ['x', 1, 'b=1', { nested: 'x' }] } });
  });

  it('test_each_action_executes_one_nested_code_action', async () => {
    const outcome = await runPython(`
name: Each
state: {type: dict, default: {rows: [[1, 2], [3]]}}
methods:
  count: {start: true, do: {call: each, in: state.rows, do: [{name: n, action: {call: code, ref: "flow_steps:count_rows", with: {rows: "\${item}"}}}]}}
`);
    expect(outcome).toMatchObject({ result: [2, 1] });
  });

  it('test_each_action_interpolates_item_values_in_step_inputs', async () => {
    const outcome = await runPython(`
name: Each
state: {type: dict, default: {people: [{name: Ada}, {name: Alan}]}}
methods:
  hello: {start: true, do: {call: each, in: state.people, do: [{name: g, action: {call: code, ref: "flow_steps:greet", with: {name: "\${item.name}"}}}]}}
`);
    expect(outcome).toMatchObject({ result: ['hello Ada!', 'hello Alan!'] });
  });

  it('test_script_action_requires_explicit_opt_in', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'crewd-conformance-')));
    writeFileSync(
      join(dir, 'flow.yaml'),
      'name: S\nmethods:\n  m: {start: true, do: {call: script, code: "return 1"}}\n',
    );
    await expect(
      openFlowRuntime({
        target: dir,
        env: { ...python, CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION: 'no' },
        warn: () => {},
        tools: { workspaceRoot: join(dir, 'workspaces'), crewdState: [] },
      }),
    ).rejects.toThrow('Flow script execution is disabled by default.');
  });

  it('test_script_action_runs_python_imports_mutates_state_and_returns_value', async () => {
    const outcome = await runPython(`
name: Script
state: {type: dict, default: {values: [3, 1, 2]}}
methods:
  stats:
    start: true
    do:
      call: script
      code: |
        import statistics
        state["median"] = statistics.median(state["values"])
        return state["median"] * 10
  report: {listen: stats, do: {call: expression, expr: "string(state.median) + ' ' + string(outputs.stats)"}}
`);
    expect(outcome).toMatchObject({ result: '2 20', state: { median: 2 } });
  });

  it('test_script_listener_reads_trigger_input_and_outputs', async () => {
    const outcome = await runPython(`
name: Script
methods:
  begin: {start: true, do: {call: expression, expr: "'seed'"}}
  follow:
    listen: begin
    do: {call: script, code: "return input + '+' + outputs['begin']"}
`);
    expect(outcome).toMatchObject({ result: 'seed+seed' });
  });

  it('test_script_each_action_reads_item_and_step_outputs', async () => {
    const outcome = await runPython(`
name: Script
state: {type: dict, default: {rows: [a, b]}}
methods:
  each_row:
    start: true
    do:
      call: each
      in: state.rows
      do:
        - {name: up, action: {call: expression, expr: "item + item"}}
        - {name: tag, action: {call: script, code: "return outputs['up'] + '-' + item"}}
`);
    expect(outcome).toMatchObject({ result: ['aa-a', 'bb-b'] });
  });
});
