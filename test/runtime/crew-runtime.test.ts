import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToCompletion } from '../../src/cli/run-to-completion.ts';
import { openCrewRuntime, type CrewRuntime } from '../../src/runtime/crew-runtime.ts';
import { crewsDir } from '../support/crewd.ts';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;

const hasToolResult = (request: RecordedRequest): boolean =>
  (request.body?.messages as { role: string }[] | undefined)?.some((message) => message.role === 'tool') ??
  false;

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) =>
      hasToolResult(request)
        ? { content: 'The visit to Porto is recorded.' }
        : { toolCalls: [{ name: 'visits_record_visit', arguments: { city: 'Porto' } }] },
  });
});

afterAll(async () => {
  await model.close();
});

/**
 * Opens a copy of the MCP tool crew, whose MCP server is a child process of this one, with a visit log of its own.
 * The copy has the MCP SDK its server imports, as a user's crew directory with a Node MCP server has.
 */
async function openVisitCrew(): Promise<{ runtime: CrewRuntime; visitLog: string }> {
  const crewDir = userCrew(join(crewsDir, 'mcp-tool-crew'));
  symlinkSync(resolve(import.meta.dirname, '../../node_modules'), join(crewDir, 'node_modules'));
  const visitLog = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
  const runtime = await openCrewRuntime({
    crewDir,
    env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-key', VISIT_LOG: visitLog },
    warn: () => undefined,
    allowPartial: false,
    defaultModel: undefined,
    tools: { workspaceRoot: mkdtempSync(join(tmpdir(), 'crewd-workspace-')), crewdState: [] },
    check: true,
  });
  return { runtime, visitLog };
}

describe('crew runtime', () => {
  it('keeps several crews open in one process: closing one leaves the other running its tasks and tools', async () => {
    const first = await openVisitCrew();
    const second = await openVisitCrew();

    await first.runtime.close();
    const { crew, models, tools, defaultModel } = second.runtime;
    try {
      const result = await runToCompletion({
        executionId: randomUUID(),
        crew,
        inputs: { city: 'Porto' },
        models,
        tools,
        defaultModel,
        signal: new AbortController().signal,
        onEvent: () => undefined,
        review: () => Promise.resolve({ approved: true, feedback: '' }),
      });

      expect(result.outputs.at(-1)?.output).toBe('The visit to Porto is recorded.');
      // The second crew's MCP server ran the tool; the first one's, closed, never did.
      expect(readFileSync(second.visitLog, 'utf8')).toBe('mcp Porto\n');
      expect(existsSync(first.visitLog)).toBe(false);
    } finally {
      await second.runtime.close();
    }
  });
});
