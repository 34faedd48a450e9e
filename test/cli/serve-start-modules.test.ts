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

/** Preloaded into the server: records every ES module and CommonJS file it loads, one per line. */
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
register(${JSON.stringify(pathToFileURL(hooks).href)});
const load = Module._load;
Module._load = function (request, parent, isMain) {
  appendFileSync(${JSON.stringify(logFile)}, Module._resolveFilename(request, parent, isMain) + '\\n');
  return load.apply(this, arguments);
};
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

describe('a server start', () => {
  it('loads none of the libraries that only flows, MCP, A2A, prices or scraping need', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crewd-start-modules-'));
    const log = join(dir, 'loaded.txt');
    writeFileSync(log, '');
    const server = await spawnCrewd({
      crewDir: userCrew(join(crewsDir, 'plain-crew')),
      modelUrl: model.url,
      env: { NODE_OPTIONS: `--import ${pathToFileURL(moduleRecorder(dir, log)).href}` },
    });
    try {
      const answer = await apiClient(server.url).get('/inputs');
      expect(answer.status).toBe(200);
      const loaded = readFileSync(log, 'utf8').split('\n');
      // The recorder works: the server's own web framework is there.
      expect(loaded.some((file) => file.includes('/node_modules/fastify/'))).toBe(true);
      const needless = loaded.filter((file) =>
        loadedOnDemand.some((library) => file.includes(`/node_modules/${library}/`)),
      );
      expect(needless).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
