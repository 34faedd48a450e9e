import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkFlowInputs } from '../../src/flow/flow-state.ts';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { openFlowRuntime } from '../../src/flow/open-flow-runtime.ts';
import type { FlowRuntime } from '../../src/flow/open-flow-runtime.ts';
import { runFlow } from '../../src/flow/run-flow.ts';
import type { RunFlowOptions } from '../../src/flow/run-flow.ts';
import { repoRoot } from '../cli/crewd-command.ts';
import { userCrew } from '../support/user-crew.ts';

const pythonFlow = join(repoRoot, 'test/fixtures/flows/python-flow');
/** The test runner's PATH finds the python3 the tests run with (3.11 with Pydantic 2). */
const path = process.env.PATH ?? '';
const withScripts = { PATH: path, CREWD_PYTHON: 'python3', CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION: '1' };

describe("Python actions in the project's Python", () => {
  let runtime: FlowRuntime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });

  async function open(dir: string, env: Record<string, string>): Promise<FlowRuntime> {
    runtime = await openFlowRuntime({
      target: dir,
      env,
      warn: () => {},
      tools: { workspaceRoot: join(dir, '..', 'workspaces'), crewdState: [] },
    });
    return runtime;
  }

  function run(opened: FlowRuntime, options: Partial<RunFlowOptions> = {}) {
    return runFlow({
      definition: opened.definition,
      journal: new MemoryFlowJournal(),
      dependencies: {
        models: opened.models,
        tools: opened.tools,
        defaultModel: undefined,
        executionId: 'python-flow-1',
        newId: () => 'state-1',
        ...(opened.pythonActions === undefined ? {} : { pythonActions: opened.pythonActions }),
      },
      ...options,
    });
  }

  it('runs code, script and tool actions, and keeps the state code and scripts change', async () => {
    const opened = await open(userCrew(pythonFlow), withScripts);
    const outcome = await run(opened, { inputs: { owner: 'Ada' } });
    expect(outcome).toMatchObject({
      status: 'completed',
      result: 'Ada 15 30 opened for Ada',
      outputs: { open_book: 'opened for Ada', add: 15, check: 30 },
      state: { id: 'state-1', owner: 'Ada', total: 15, entries: ['opened for Ada'] },
    });
  });

  it("takes a Pydantic state class's fields as the flow's inputs, checked as crewAI checks them", async () => {
    const opened = await open(userCrew(pythonFlow), withScripts);
    expect(checkFlowInputs(opened.definition, {})).toMatchObject({ missing: ['owner'] });
    expect(checkFlowInputs(opened.definition, { owner: 'Ada', total: 'many' })).toMatchObject({
      invalid: [{ field: 'total' }],
    });
    expect(opened.python).toMatch(/^python3 \(from CREWD_PYTHON\), Python 3\./);
  });

  it('fails the method with the Python error and where in the project it was raised', async () => {
    const dir = userCrew(pythonFlow);
    const flowFile = join(dir, 'flow.yaml');
    writeFileSync(
      flowFile,
      readFileSync(flowFile, 'utf8').replace(
        'ref: "ledger.steps:open_ledger", with: {owner: "${state.owner}"}',
        'ref: "ledger.steps:refuse"',
      ),
    );
    const opened = await open(dir, withScripts);
    await expect(run(opened, { inputs: { owner: 'Ada' } })).rejects.toThrow(
      'call: code failed in Python: ValueError: the ledger is closed (src/ledger/steps.py:13)',
    );
  });

  it('refuses scripts unless the flow is trusted with them, as crewAI does', async () => {
    await expect(open(userCrew(pythonFlow), { PATH: path, CREWD_PYTHON: 'python3' })).rejects.toThrow(
      'flow.yaml (methods.add.do): Flow script execution is disabled by default. Set CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1',
    );
  });

  it('refuses Python actions at load, naming the method, when no Python starts', async () => {
    const missing = join(repoRoot, 'test/fixtures/flows/no-such-python');
    await expect(open(userCrew(pythonFlow), { ...withScripts, CREWD_PYTHON: missing })).rejects.toThrow(
      "flow.yaml (methods.open_book.do): method 'open_book' uses call: code, which runs in the project's Python, and no Python is available (could not start",
    );
  });

  it('keeps the state Python actions changed across a pause and a resume, running neither again', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'crewd-python-flow-')));
    writeFileSync(
      join(dir, 'flow.yaml'),
      `
name: Tally
state: {type: dict, default: {count: 0}}
methods:
  bump: {start: true, do: {call: script, code: "state['count'] += 1\\nreturn state['count']"}}
  review:
    listen: bump
    do: {call: script, code: "state['count'] += 10\\nreturn 'draft'"}
    human_feedback: {message: Check it}
  report: {listen: review, do: {call: expression, expr: "string(state.count) + ' ' + outputs.review.feedback"}}
`,
    );
    const opened = await open(dir, withScripts);
    const journal = new MemoryFlowJournal();
    expect(await run(opened, { journal })).toMatchObject({
      status: 'paused',
      method: 'review',
      output: 'draft',
      state: { count: 11 },
    });
    expect(await run(opened, { journal, feedback: 'fine' })).toMatchObject({
      status: 'completed',
      result: '11 fine',
      state: { count: 11 },
    });
  });
});
