import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { openFlowRuntime } from '../../src/flow/open-flow-runtime.ts';
import type { FlowRuntime } from '../../src/flow/open-flow-runtime.ts';
import { runFlow } from '../../src/flow/run-flow.ts';
import { repoRoot } from '../cli/crewd-command.ts';
import { startFakeOpenAI } from '../support/fake-openai-server.ts';
import { startStreamableHttpServer } from '../support/mcp-http-server.ts';
import type { FakeOpenAIServer, RecordedRequest } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';
import { testModel } from './flow-harness.ts';

const tooledFlow = join(repoRoot, 'test/fixtures/flows/tooled-flow');

/** A directory outside the repository holding one flow.yaml. */
function flowDir(yaml: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'crewd-flow-')));
  writeFileSync(join(dir, 'flow.yaml'), yaml);
  return dir;
}

const agentUsing = (tools: string) => `
name: OneAgent
methods:
  answer:
    start: true
    do: {call: agent, with: {role: R, goal: G, backstory: B, tools: ${tools}, input: hi}}
`;

/** The arguments the fake model calls each tool of the fixture with, by the name the tool is offered under. */
const argumentsFor: Record<string, unknown> = {
  lookup_order: { order: 'A-17' },
  courier_status: { parcel: 'P-1' },
  refund_policy: { amount: 30 },
  echo: { text: 'through MCP' },
};

interface OfferedTool {
  function: { name: string };
}

function offered(request: RecordedRequest): string[] {
  return ((request.body.tools ?? []) as OfferedTool[]).map((tool) => tool.function.name);
}

/** Calls every tool it is offered once, then answers with what the tools said. */
function toolUser(request: RecordedRequest) {
  const messages = request.body.messages as { role: string; content: string }[];
  const results = messages.filter((message) => message.role === 'tool').map((message) => message.content);
  if (results.length > 0) return { content: results.join(' | ') };
  // An MCP server's tool is offered under a name that carries the server's (`…_mcp_echo`).
  const argumentsOf = (name: string) =>
    Object.entries(argumentsFor).find(([tool]) => name === tool || name.endsWith(`_${tool}`))?.[1] ?? {};
  return { toolCalls: offered(request).map((name) => ({ name, arguments: argumentsOf(name) })) };
}

describe('tools of flow agents', () => {
  let fake: FakeOpenAIServer;
  let runtime: FlowRuntime | undefined;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await runtime?.close();
    await fake.close();
  });

  async function open(dir: string, env: Record<string, string> = {}): Promise<FlowRuntime> {
    runtime = await openFlowRuntime({
      target: dir,
      env: {
        PATH: process.env.PATH ?? '',
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: 'sk-test',
        CREWD_PYTHON: 'python3',
        ...env,
      },
      warn: () => {},
      tools: { workspaceRoot: join(dir, '..', 'workspaces'), crewdState: [] },
    });
    return runtime;
  }

  it("gives agent actions and inline crews' agents the flow's TypeScript tools and the project's Python tools", async () => {
    fake.respondWith(toolUser);
    const opened = await open(userCrew(tooledFlow));
    const outcome = await runFlow({
      definition: opened.definition,
      journal: new MemoryFlowJournal(),
      dependencies: {
        models: opened.models,
        tools: opened.tools,
        defaultModel: testModel,
        executionId: 'flow-tools-1',
      },
    });
    expect(offered(fake.requests[0]!).sort()).toEqual(['courier_status', 'lookup_order']);
    expect(outcome).toMatchObject({
      status: 'completed',
      result: { raw: 'refund of 30 EUR: allowed' },
      outputs: { investigate: { raw: 'order A-17: shipped on Tuesday | parcel P-1 is at the depot' } },
    });
    expect(offered(fake.requests[2]!)).toEqual(['refund_policy']);
  });

  it('refuses at load a tool no source provides, naming the method and the tool', async () => {
    await expect(open(flowDir(agentUsing('[FileReadTool, no_such_tool]')))).rejects.toThrow(
      "flow.yaml (methods.answer.do.with.tools[1]): method 'answer' gives an agent the tool 'no_such_tool', which no tool source provides",
    );
    await expect(open(flowDir(agentUsing('["desk_tools.missing:Nothing"]')))).rejects.toThrow(
      "flow.yaml (methods.answer.do.with.tools[0]): method 'answer' gives an agent the tool 'desk_tools.missing:Nothing', which the project's Python cannot provide: " +
        "Python tool Nothing (desk_tools.missing): python3 (from CREWD_PYTHON) cannot build it: ModuleNotFoundError: No module named 'desk_tools'",
    );
  });

  it("takes crewAI's built-in tool refs from crewd's built-in tools where the project's Python lacks crewai_tools", async () => {
    const opened = await open(flowDir(agentUsing('["crewai_tools:FileReadTool", SerperDevTool]')), {
      SERPER_API_KEY: 'serper-test',
    });
    expect(opened.tools.get('FileReadTool')?.name).toBe('FileReadTool');
    expect(opened.tools.get('SerperDevTool')?.name).toBe('SerperDevTool');
  });

  it("gives a from_declaration crew's agents the tools they name, custom: and Python refs alike", async () => {
    fake.respondWith(toolUser);
    const dir = userCrew(tooledFlow);
    mkdirSync(join(dir, 'desk', 'agents'), { recursive: true });
    writeFileSync(
      join(dir, 'desk', 'crew.jsonc'),
      JSON.stringify({
        agents: ['clerk'],
        tasks: [
          {
            name: 'decide',
            description: 'Decide on order {order}',
            expected_output: 'A decision',
            agent: 'clerk',
          },
        ],
      }),
    );
    const clerk = (tools: string[]) =>
      JSON.stringify({ role: 'Clerk', goal: 'Decide', backstory: 'Careful.', tools });
    writeFileSync(
      join(dir, 'desk', 'agents', 'clerk.jsonc'),
      clerk(['custom:lookup_order', 'desk_tools.refunds:RefundPolicyTool']),
    );
    writeFileSync(
      join(dir, 'flow.yaml'),
      'name: Declared\nmethods:\n  decide: {start: true, do: {call: crew, from_declaration: desk, inputs: {order: A-17}}}\n',
    );
    const opened = await open(dir);
    const outcome = await runFlow({
      definition: opened.definition,
      journal: new MemoryFlowJournal(),
      dependencies: {
        models: opened.models,
        tools: opened.tools,
        defaultModel: testModel,
        executionId: 'declared-1',
      },
    });
    expect(offered(fake.requests[0]!).sort()).toEqual(['lookup_order', 'refund_policy']);
    expect(outcome).toMatchObject({
      result: { raw: 'order A-17: shipped on Tuesday | refund of 30 EUR: allowed' },
    });
    await runtime?.close();
    runtime = undefined;
    writeFileSync(join(dir, 'desk', 'agents', 'clerk.jsonc'), clerk(['custom:lookup_orders']));
    await expect(open(dir)).rejects.toThrow(
      "flow.yaml (methods.decide.do.from_declaration (agents/clerk).tools[0]): method 'decide' gives an agent the tool 'lookup_orders'",
    );
  });

  it("gives a flow agent the tools of the MCP servers its mcps name, as a crew's agent gets them", async () => {
    fake.respondWith(toolUser);
    const server = await startStreamableHttpServer();
    try {
      const opened = await open(
        flowDir(
          `name: OneAgent\nmethods:\n  answer:\n    start: true\n    do: {call: agent, with: {role: R, goal: G, backstory: B, mcps: ["${server.url}#echo"], input: hi}}\n`,
        ),
      );
      const outcome = await runFlow({
        definition: opened.definition,
        journal: new MemoryFlowJournal(),
        dependencies: {
          models: opened.models,
          tools: opened.tools,
          defaultModel: testModel,
          executionId: 'mcp-1',
        },
      });
      expect(offered(fake.requests[0]!)).toEqual([expect.stringMatching(/_mcp_echo$/)]);
      expect(outcome).toMatchObject({ result: { raw: 'through MCP' } });
    } finally {
      await runtime?.close();
      runtime = undefined;
      await server.close();
    }
  });
});
