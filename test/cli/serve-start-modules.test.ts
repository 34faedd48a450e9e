import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, spawnCrewd } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

/*
 * A server's start is mostly loading modules (figures 5 and 19). The libraries only some crews or some clients need
 * load when first needed; this says which, by listing every module a started server has loaded.
 */

/** Loaded only for a flow, an MCP server or client, an A2A client, the first price, the first scraped page. */
const loadedOnDemand = [
  '@modelcontextprotocol/sdk',
  '@a2a-js/sdk',
  '@bufbuild/cel',
  '@pydantic/genai-prices',
  'htmlparser2',
];

/**
 * Preloaded into the server: records every ES module and CommonJS file its main thread loads, one per line. Other
 * threads (the model thread) load what they need without the recorder.
 */
function moduleRecorder(dir: string, logFile: string): string {
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(logFile)}, url + '\\n');
  return next(url, context);
}
`,
  );
  const preload = join(dir, 'preload.mjs');
  writeFileSync(
    preload,
    `import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) {
  register(${JSON.stringify(pathToFileURL(hooks).href)});
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    appendFileSync(${JSON.stringify(logFile)}, Module._resolveFilename(request, parent, isMain) + '\\n');
    return load.apply(this, arguments);
  };
}
`,
  );
  return preload;
}

let model: FakeOpenAIServer;

beforeAll(async () => {
  model = await startFakeOpenAI();
});

afterAll(async () => {
  await model.close();
});

/** A served user's crew whose main thread records what it loads; `loaded()` reads the record. */
async function recordedServer() {
  const dir = mkdtempSync(join(tmpdir(), 'crewd-start-modules-'));
  const log = join(dir, 'loaded.txt');
  writeFileSync(log, '');
  const server = await spawnCrewd({
    crewDir: userCrew(join(crewsDir, 'plain-crew')),
    modelUrl: model.url,
    env: { NODE_OPTIONS: `--import ${pathToFileURL(moduleRecorder(dir, log)).href}` },
  });
  const loaded = (): string[] => readFileSync(log, 'utf8').split('\n');
  return { server, loaded };
}

const fromLibrary = (library: string) => (file: string) => file.includes(`/node_modules/${library}/`);

describe('a server start', () => {
  it('makes its model calls on a thread of its own: the main thread never loads the provider adapter', async () => {
    const { server, loaded } = await recordedServer();
    try {
      const api = apiClient(server.url);
      const kickoff = await api.post('/kickoff', { inputs: { topic: 'tides' } });
      expect(kickoff.status).toBe(200);
      const status = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
      expect(status.body.state).toBe('SUCCESS');
      expect(model.answered.length).toBeGreaterThan(0);
      expect(loaded().some(fromLibrary('fastify'))).toBe(true);
      expect(loaded().filter(fromLibrary('@ai-sdk/openai'))).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('loads none of the libraries that only flows, MCP, A2A, prices or scraping need', async () => {
    const { server, loaded } = await recordedServer();
    try {
      const answer = await apiClient(server.url).get('/inputs');
      expect(answer.status).toBe(200);
      // The recorder works: the server's own web framework is there.
      expect(loaded().some(fromLibrary('fastify'))).toBe(true);
      const needless = loaded().filter((file) => loadedOnDemand.some((library) => fromLibrary(library)(file)));
      expect(needless).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
