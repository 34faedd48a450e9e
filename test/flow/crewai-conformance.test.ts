/**
 * crewAI's own tests of declarative flows (lib/crewai/tests/test_flow_from_definition.py, 1.15.17), ported where the
 * engine supports them and not already ported under another name elsewhere in test/flow/. Each test is named after
 * the crewAI test it ports; Python fixtures run in the real python3 through the project's Python host.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flowFromText } from '../../src/flow/load-flow.ts';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { openFlowRuntime } from '../../src/flow/open-flow-runtime.ts';
import type { FlowRuntime } from '../../src/flow/open-flow-runtime.ts';
import { pendingReview, runFlow } from '../../src/flow/run-flow.ts';
import type { FlowOutcome } from '../../src/flow/run-flow.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
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

/** Options of one run of a Python flow: the journal it records in (a fresh one by default) and the review's answer. */
interface PythonRunOptions {
  readonly inputs?: Record<string, unknown>;
  readonly journal?: MemoryFlowJournal;
  readonly feedback?: string;
  /** Methods in the order they started, replays not counted. */
  readonly started?: string[];
}

/** Opens a flow that calls `flow_steps` in the real python3, from a directory outside the repository. */
async function openPython(yaml: string): Promise<(options?: PythonRunOptions) => Promise<FlowOutcome>> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'crewd-conformance-')));
  writeFileSync(join(dir, 'flow.yaml'), yaml);
  writeFileSync(join(dir, 'flow_steps.py'), stepsModule);
  const runtime = await openFlowRuntime({
    target: dir,
    env: python,
    warn: () => {},
    tools: { workspaceRoot: join(dir, 'workspaces'), crewdState: [] },
  });
  opened = runtime;
  return (options = {}) =>
    runFlow({
      definition: runtime.definition,
      journal: options.journal ?? new MemoryFlowJournal(),
      ...(options.inputs === undefined ? {} : { inputs: options.inputs }),
      ...(options.feedback === undefined ? {} : { feedback: options.feedback }),
      onEvent: (event) => {
        if (event.type === 'method-start') options.started?.push(event.method);
      },
      dependencies: {
        models: runtime.models,
        tools: runtime.tools,
        defaultModel: undefined,
        executionId: 'conformance',
        newId: () => 'state-1',
        ...(runtime.pythonActions === undefined ? {} : { pythonActions: runtime.pythonActions }),
      },
    });
}

/** Runs a flow that calls `flow_steps` in the real python3 once, to its end or first pause. */
async function runPython(yaml: string, inputs: Record<string, unknown> = {}): Promise<FlowOutcome> {
  return (await openPython(yaml))({ inputs });
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

/** A flow whose two methods each count themselves in state, as crewAI's persistence tests' flow does. */
const persistedFlow = `
name: PersistedFlow
persist: {enabled: true, persistence: {persistence_type: SQLiteFlowPersistence}}
methods:
  first:
    start: true
    do:
      call: script
      code: |
        state["count"] = state.get("count", 0) + 1
        return "one"
  second:
    listen: first
    do:
      call: script
      code: |
        state["count"] += 1
        return "two"
`;

/** The methods a journal recorded as completed, in order, with the state each left. */
function completions(journal: MemoryFlowJournal): { method: string; state: Record<string, unknown> }[] {
  return journal.recorded.flatMap((entry) =>
    entry.kind === 'method-completed' ? [{ method: entry.method, state: entry.bookkeeping.state }] : [],
  );
}

/** A journal holding the first `count` entries of another: a run cut short (a crash, a restart) after them. */
function cutAfter(journal: MemoryFlowJournal, count: number): MemoryFlowJournal {
  const cut = new MemoryFlowJournal();
  for (const entry of journal.recorded.slice(0, count)) void cut.append(entry);
  return cut;
}

/*
 * crewAI tests of test_flow_from_definition.py that cannot apply to crewd, and why:
 * - test_method_level_persist_from_declaration_saves_only_that_method,
 *   test_method_level_persist_disabled_wins_over_flow_level,
 *   test_method_persist_backend_overrides_flow_level_backend_from_declaration: crewd journals every method of every
 *   run, whatever `persist` says (a run must survive a crash), and has no persistence backends to choose among;
 *   `persist` is read and reported by `crewd check`, not acted on.
 * - test_combined_class_and_method_persist_saves_once_per_method, test_method_level_persist_decorator_saves_only_that_method,
 *   test_definition_persist_equivalence, test_method_persist_decorator_overrides_class_level_backend,
 *   test_instance_persistence_overrides_definition_backend,
 *   test_class_level_persist_without_instance_kwarg_saves_and_restores, test_stamped_decorator_attrs_are_inert_at_runtime,
 *   test_runtime_package_reads_no_decorator_attrs, test_definition_method_missing_from_class_fails_loudly,
 *   test_flow_definition_stamps_refs, test_definition_human_feedback_equivalence: they test Python `Flow` classes,
 *   `@persist` and `@human_feedback` decorators, which a declarative flow in crewd does not have.
 * - test_fork_with_definition_branches_yaml_flow: crewd has no `Flow.fork` from a checkpoint; the fork it has is a
 *   kickoff's `restoreFromStateId` (flow-level `persist`), which starts from the latest state saved under a state id
 *   under a new one (test/e2e/flow-restore.test.ts).
 * - test_flow_config_provider_fallback_from_declaration, test_provider_ref_requiring_ctor_args_fails_loudly,
 *   test_unresolvable_provider_ref_names_field_and_ref, test_input_provider_bad_ref_names_field_and_ref,
 *   test_config_input_provider_from_declaration: `human_feedback.provider` and `config.input_provider` are refused
 *   when the flow loads; a served flow's reviews come through `/resume`, `crewd run`'s from the terminal.
 * test_human_feedback_from_declaration_default_outcome_routes and test_human_feedback_from_declaration_collapses_and_routes
 * are in human-feedback.test.ts ('takes empty feedback as the default outcome', 'asks the method model to classify
 * free text').
 */

/*
 * crewAI persists a flow's state through `persist` backends and restores it by state id or from a checkpoint.
 * crewd keeps every run in its journal (the execution's record in the store when served), whatever `persist`
 * says, restores a run cut short by running it again over its journal, and with flow-level `persist` starts a
 * served kickoff naming a state id from the state last saved under it, as crewAI does. These tests hold crewd's
 * journal and store to what crewAI asserts about saving and restoring state.
 */
describe("crewAI conformance: persistence and checkpoints, on crewd's journal", () => {
  const harness = useFlowHarness();

  it('test_flow_level_persist_from_declaration_saves_once_per_method', async () => {
    const journal = new MemoryFlowJournal();
    const outcome = await (await openPython(persistedFlow))({ journal });
    expect(outcome).toMatchObject({ status: 'completed', result: 'two', state: { count: 2 } });
    const saved = completions(journal);
    expect(saved.map((save) => save.method)).toEqual(['first', 'second']);
    expect(saved[0]?.state).toMatchObject({ count: 1 });
    expect(saved.at(-1)?.state).toMatchObject({ count: 2, id: outcome.state.id });
  });

  it('test_persist_restore_by_id_from_declaration', async () => {
    // As crewAI: a kickoff of the flow (flow-level persist) with `inputs.id` naming an earlier run's state id loads
    // that run's last saved state and runs from the start again over it: the count goes 2 -> 4, under the same id.
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'crewd-conformance-')));
    writeFileSync(join(dir, 'flow.yaml'), persistedFlow);
    const crewd = await startCrewd({ crewDir: dir, modelUrl: harness.fake.url, env: python });
    try {
      const api = apiClient(crewd.url);
      const finish = async (inputs: Record<string, unknown>) => {
        const kickoff = await api.post('/kickoff', { inputs });
        return (await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED'])).body;
      };
      const first = await finish({});
      expect(first).toMatchObject({ state: 'SUCCESS', result: 'two', flow_state: { count: 2 } });
      const restored = await finish({ id: first.flow_state.id });
      expect(restored).toMatchObject({
        state: 'SUCCESS',
        result: 'two',
        flow_state: { count: 4, id: first.flow_state.id },
        // Completed methods are not restored: both run again.
        flow_methods: ['first', 'second'],
      });
    } finally {
      await crewd.close();
    }
  });

  it('restarts a run over its journal without running a completed method again', async () => {
    // crewd's own durability, beside crewAI's restore by id: a run cut short (a crash, a restart) goes on with its
    // journal, the state it holds (count 1 after first) and its id, and only what did not complete runs.
    const run = await openPython(persistedFlow);
    const full = new MemoryFlowJournal();
    const first = await run({ journal: full });
    const started: string[] = [];
    const restored = await run({ journal: cutAfter(full, 2), started });
    expect(started).toEqual(['second']);
    expect(restored).toMatchObject({ status: 'completed', result: 'two', state: { count: 2 } });
    expect(restored.state.id).toBe(first.state.id);
  });

  it('test_resume_synthetic_completion_persists', async () => {
    const definition = flow(`
name: ResumableFlow
methods:
  generate: {start: true, do: {call: expression, expr: "'content'"}, human_feedback: {message: "Review:"}}
  process: {listen: generate, do: {call: expression, expr: "'done'"}}
`);
    const journal = new MemoryFlowJournal();
    expect(await harness.run(definition, { journal })).toMatchObject({
      status: 'paused',
      method: 'generate',
    });
    expect(completions(journal)).toEqual([]);
    expect(await harness.run(definition, { journal, feedback: 'looks good' })).toMatchObject({
      status: 'completed',
      result: 'done',
    });
    // The paused method is recorded as completed once, when its review is answered, then its listener.
    expect(completions(journal).map((save) => save.method)).toEqual(['generate', 'process']);
    // Its action ran once, before the pause; the resume starts the method again (crewAI's resume emits
    // method_execution_started for it too) only to take the answer.
    expect(journal.recorded.filter((entry) => entry.kind === 'action-completed')).toHaveLength(1);
    expect(harness.started).toEqual(['generate', 'generate', 'process']);
  });

  it('test_human_feedback_pending_and_resume_from_declaration', async () => {
    const yaml = `
name: PendingReviewFlow
methods:
  generate: {start: true, do: {call: expression, expr: "'content'"}, human_feedback: {message: "Review:"}}
  process: {listen: generate, do: {call: expression, expr: "'resumed:' + outputs.generate.feedback"}}
`;
    const journal = new MemoryFlowJournal();
    const pending = await harness.run(flow(yaml), { journal });
    expect(pending).toMatchObject({
      status: 'paused',
      method: 'generate',
      output: 'content',
      message: 'Review:',
    });
    expect(pendingReview(journal.recorded)).toMatchObject({ method: 'generate', output: 'content' });
    // Resumed from what was saved, by a flow loaded again from its definition (another process would).
    const resumed = await harness.run(flow(yaml), { journal, feedback: 'looks good' });
    expect(resumed).toMatchObject({
      status: 'completed',
      result: 'resumed:looks good',
      outputs: { generate: { feedback: 'looks good', output: 'content' } },
    });
    expect(pendingReview(journal.recorded)).toBeUndefined();
  });

  it('test_from_checkpoint_with_definition_restores_yaml_flow', async () => {
    const run = await openPython(`
name: ChainFlow
methods:
  begin:
    start: true
    do:
      call: script
      code: |
        state["begin_ran"] = True
        return "hello"
  shout: {listen: begin, do: {call: script, code: "return input.upper()"}}
  confirm:
    listen: shout
    do:
      call: script
      code: |
        state["confirmed"] = True
        return f"confirmed:{state['confirmed']}"
`);
    const journal = new MemoryFlowJournal();
    const first = await run({ journal });
    expect(first).toMatchObject({ status: 'completed', result: 'confirmed:True' });
    // Restored from the finished run's journal: the same state and id, the same result, and nothing runs again.
    const started: string[] = [];
    const restored = await run({ journal, started });
    expect(restored).toMatchObject({
      status: 'completed',
      result: 'confirmed:True',
      state: { begin_ran: true, confirmed: true, id: first.state.id },
    });
    expect(started).toEqual([]);
  });
});

describe('crewAI conformance: events of a served flow', () => {
  const harness = useFlowHarness();

  it('test_definition_flow_events_use_definition_name', async () => {
    // Served from a directory named otherwise, the flow's events still carry the name its definition gives.
    const dir = join(realpathSync(mkdtempSync(join(tmpdir(), 'crewd-conformance-'))), 'chain-flow');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'flow.yaml'),
      `schema: crewai.flow/v1
name: ChainFlow
methods:
  begin: {start: true, do: {call: expression, expr: "'hello'"}}
  shout: {listen: begin, do: {call: expression, expr: "outputs.begin + '!'"}}
  confirm: {listen: shout, do: {call: expression, expr: "'confirmed:' + outputs.shout"}}
`,
    );
    const receiver = await startScriptedReceiver();
    const crewd = await startCrewd({ crewDir: dir, modelUrl: harness.fake.url });
    try {
      const api = apiClient(crewd.url);
      const kickoff = await api.post('/kickoff', {
        inputs: {},
        webhooks: { url: `${receiver.url}/events`, realtime: true },
      });
      const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
      expect(done.body.result).toBe('confirmed:hello!');
      // flow_started, a started and a finished event for each of the three methods, flow_finished.
      const events = (await receiver.waitFor('/events', 8)).flatMap(
        (request) =>
          request.body.events as { type: string; data: { flow_name?: string; method_name?: string } }[],
      );
      const named = (event: { type: string; data: { method_name?: string } }): string =>
        event.data.method_name === undefined ? event.type : `${event.type}:${event.data.method_name}`;
      // Each is a request of its own; the test does not depend on the order they arrive in.
      expect(events.map(named).sort()).toEqual(
        [
          'flow_started',
          'method_execution_started:begin',
          'method_execution_finished:begin',
          'method_execution_started:shout',
          'method_execution_finished:shout',
          'method_execution_started:confirm',
          'method_execution_finished:confirm',
          'flow_finished',
        ].sort(),
      );
      expect(events.every((event) => event.data.flow_name === 'ChainFlow')).toBe(true);
    } finally {
      await crewd.close();
      await receiver.close();
    }
  });
});
