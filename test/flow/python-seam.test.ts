import { describe, expect, it } from 'vitest';
import { toolRegistryOf } from '../../src/engine/tool.ts';
import type { PythonActionHost } from '../../src/flow/flow-action-context.ts';
import { flowFromText } from '../../src/flow/load-flow.ts';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { runFlow } from '../../src/flow/run-flow.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';

const pythonFlow = `
name: WithPython
state: {type: dict, default: {n: 2}}
methods:
  compute: {start: true, do: {call: code, ref: "pkg.steps:double", with: {value: "\${state.n}"}}}
  report: {listen: compute, do: {call: expression, expr: "'got ' + string(outputs.compute)"}}
`;

describe('the seam for Python actions', () => {
  it('refuses Python actions unless a host for them is given, then hands them to it', async () => {
    expect(() => flowFromText(pythonFlow, { warn: () => {} })).toThrow("method 'compute' uses call: code");
    const definition = flowFromText(pythonFlow, { warn: () => {}, acceptPythonActions: true });
    const handed: unknown[] = [];
    const host: PythonActionHost = {
      run: (action, args, context) => {
        handed.push({ ref: action.document.ref, args, state: context.data.state });
        return Promise.resolve(4);
      },
    };
    const outcome = await runFlow({
      definition,
      journal: new MemoryFlowJournal(),
      dependencies: {
        models: createModelResolver({ env: {}, baseDir: import.meta.dirname }),
        tools: toolRegistryOf([]),
        defaultModel: undefined,
        executionId: 'run-1',
        pythonActions: host,
        newId: () => 'state-1',
      },
    });
    expect(outcome).toMatchObject({ result: 'got 4' });
    expect(handed).toEqual([{ ref: 'pkg.steps:double', args: { value: 2 }, state: { n: 2, id: 'state-1' } }]);
  });
});
