import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { offeredTools, toolResultText } from '../support/model-requests.ts';
import { startStreamableHttpServer, type McpHttpServer } from '../support/mcp-http-server.ts';

const project = resolve(import.meta.dirname, '../fixtures/crewai-projects/mcp_helpdesk');

let model: FakeOpenAIServer;
let docs: McpHttpServer;
let crewd: RunningServer;

beforeAll(async () => {
  model = await startFakeOpenAI({
    // Each agent calls the echo tool its MCP server offers, then answers with the tool's result.
    respond: (request) => {
      const result = toolResultText(request);
      if (result !== undefined) return { content: `Heard: ${result}` };
      const echo = offeredTools(request).find((name) => name.endsWith('echo'));
      return echo === undefined
        ? { content: 'no echo tool' }
        : { toolCalls: [{ name: echo, arguments: { text: `ping ${offeredTools(request).length}` } }] };
    },
  });
  docs = await startStreamableHttpServer();
  crewd = await startCrewd({
    crewDir: project,
    modelUrl: model.url,
    env: { MODEL: 'openai/gpt-4o-mini', DOCS_MCP_URL: docs.url },
  });
});

afterAll(async () => {
  await crewd.close();
  await docs.close();
  await model.close();
});

describe('MCP servers written in crew.py, run without --allow-partial', () => {
  it("gives get_mcp_tools's pick of mcp_server_params to one agent and an MCPServerHTTP's tools to another", async () => {
    const api = apiClient(crewd.url);
    const kickoff = await api.post('/kickoff', { inputs: { product: 'the kettle' } });
    const done = await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    const [triage, lookup] = done.body.tasks as { output: string }[];
    // The triager has exactly the one tool it picked; the librarian every tool of the HTTP server.
    expect(triage!.output).toBe('Heard: ping 1');
    expect(lookup!.output).toMatch(/^Heard: ping \d+$/);
    expect(lookup!.output).not.toBe('Heard: ping 1');
    expect(docs.requests.some((request) => request.startsWith('POST'))).toBe(true);
  });
});
