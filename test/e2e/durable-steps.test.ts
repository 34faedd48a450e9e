import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, spawnCrewd, tempDatabase, type CrewdProcess } from '../support/crewd.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
/** The tool the model calls, as the model sees its name. */
let toolName = '';
/** Holds the model's answer after the tool result until the test lets it go (never, for the first process). */
let afterTool: Promise<unknown> = new Promise(() => undefined);
const running: CrewdProcess[] = [];

const hasToolResult = (request: RecordedRequest): boolean =>
  (request.body?.messages as { role: string }[] | undefined)?.some((message) => message.role === 'tool') ??
  false;
const chatRequests = (): RecordedRequest[] =>
  model.requests.filter((request) => request.path.endsWith('/chat/completions'));

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) =>
      hasToolResult(request)
        ? { content: 'The visit to Porto is recorded.', heldUntil: afterTool }
        : { toolCalls: [{ name: toolName, arguments: { city: 'Porto' } }] },
  });
});

afterAll(async () => {
  for (const crewd of running) crewd.child.kill('SIGKILL');
  await model.close();
});

async function serve(crewDir: string, database: string, visitLog: string): Promise<CrewdProcess> {
  const crewd = await spawnCrewd({
    crewDir,
    database,
    modelUrl: model.url,
    // A killed process cannot release its execution: the next one continues it once the lease runs out.
    env: { CREWD_EXECUTION_LEASE_MS: '1000', VISIT_LOG: visitLog },
  });
  running.push(crewd);
  return crewd;
}

describe('durable steps', () => {
  it.each([
    [
      "a TypeScript tool in the crew's tools/",
      userCrew(join(crewsDir, 'tool-crew')),
      'record_visit',
      (id: string) => `${id} Porto\n`,
    ],
    // The MCP server's script imports the SDK from this repository's packages, so this crew stays where it is.
    ['an MCP server over stdio', join(crewsDir, 'mcp-tool-crew'), 'visits_record_visit', () => 'mcp Porto\n'],
    [
      "a crewAI project's Python tool, run in the project's Python",
      userCrew(resolve(import.meta.dirname, '../fixtures/crewai-projects/visit_log')),
      'record_visit',
      () => 'python Porto\n',
    ],
  ])(
    'goes on from the last completed step after a SIGKILL (%s): the tool runs once and no answer is asked twice',
    async (_source, crewDir, modelToolName, logged) => {
      toolName = modelToolName;
      afterTool = new Promise(() => undefined);
      const askedAtStart = chatRequests().length;
      const database = tempDatabase();
      const visitLog = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
      const first = await serve(crewDir, database, visitLog);
      const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { city: 'Porto' } });
      const id = kickoff.body.kickoff_id as string;
      // The tool has run and the model has been asked to go on from its result: kill the process there.
      await until(() => chatRequests().slice(askedAtStart).some(hasToolResult));
      first.child.kill('SIGKILL');
      await first.exited;
      const askedBefore = chatRequests().length;

      afterTool = Promise.resolve();
      const second = await serve(crewDir, database, visitLog);
      const done = await apiClient(second.url).waitForState(id, ['SUCCESS', 'FAILED']);

      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.result).toBe('The visit to Porto is recorded.');
      // The tool's side effect happened once, across both processes.
      expect(readFileSync(visitLog, 'utf8')).toBe(logged(id));
      // Only the call that had not completed is made again: the answer that asked for the tool is not.
      const later = chatRequests().slice(askedBefore);
      expect(later).toHaveLength(1);
      expect(hasToolResult(later[0]!)).toBe(true);
      const ours = chatRequests().slice(askedAtStart);
      expect(ours.filter((request) => !hasToolResult(request))).toHaveLength(1);
      // The replayed call counts in the usage: two calls of 10 + 5 tokens.
      expect(done.body.usage_metrics).toMatchObject({ total_tokens: 30, successful_requests: 2 });
    },
  );
});
