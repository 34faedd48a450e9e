import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startCrewd, testToken } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { callMcpTool, connectMcp, structured } from '../support/mcp-client.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let client: Client;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'A draft about kettles.' }) });
  crewd = await startCrewd({
    crewDir: userCrew(join(import.meta.dirname, 'flows', 'review-flow')),
    modelUrl: model.url,
  });
  client = await connectMcp(crewd.url, testToken);
});

afterAll(async () => {
  await client.close();
  await crewd.close();
  await model.close();
});

const call = (name: string, args: Record<string, unknown>) => callMcpTool(client, name, args);

describe("a flow's MCP server", () => {
  it("takes the state's fields as typed, a field with a default optional", async () => {
    const { tools } = await client.listTools();
    const kickoff = tools.find((tool) => tool.name === 'kickoff')!;
    expect(kickoff.description).toContain('flow methods: draft, review, publish, send_back');
    expect(kickoff.inputSchema.properties).toMatchObject({
      topic: { type: 'string' },
      audience: { type: 'string' },
    });
    expect(kickoff.inputSchema.required).toEqual(['topic']);
  });

  it('runs the flow to its review, and the resume tool routes it by the outcome given', async () => {
    const paused = structured(await call('kickoff', { topic: 'kettles', wait_seconds: 300 }));
    expect(paused).toMatchObject({
      state: 'PAUSED',
      pending_human_input: { task_id: 'review', emit: ['approved', 'needs_changes'] },
      flow_state: { topic: 'kettles', audience: 'engineers' },
    });
    const resumed = structured(
      await call('resume', {
        execution_id: paused.kickoff_id,
        task_id: 'review',
        human_feedback: 'approved',
        is_approve: true,
        wait_seconds: 300,
      }),
    );
    expect(resumed.execution).toMatchObject({
      state: 'SUCCESS',
      result: 'PUBLISHED: A draft about kettles.',
      flow_methods: ['draft', 'review', 'publish'],
    });
  });

  it('answers a kickoff without a required field with the fields it lacks', async () => {
    const result = await call('kickoff', { wait_seconds: 0 });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('topic');
  });
});
