import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '../../src/engine/tool.ts';
import { createMcpToolSource } from '../../src/tools/mcp/index.ts';
import { staticToolSource } from '../../src/tools/tool-source.ts';
import { builtinToolSource } from '../../src/tools/builtin/builtin-tool-source.ts';
import { crewToolsSource } from '../../src/tools/crew-tools/crew-tools-source.ts';
import { loadCrew } from '../../src/crew/load-crew.ts';
import { PythonToolSource } from '../../src/tools/python/python-tool-source.ts';
import { userCrew } from '../support/user-crew.ts';
import { createDemoServer } from '../fixtures/mcp/demo-server.mjs';
import { startStreamableHttpServer } from '../support/mcp-http-server.ts';
import { runToolSourceContract } from './tool-source-contract.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'mcp');
const env = { PATH: process.env.PATH };

const echo: Tool = {
  name: 'Echo',
  description: 'Returns the text it is given.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: (input) => Promise.resolve((input as { text: string }).text),
};

runToolSourceContract('staticToolSource', () =>
  Promise.resolve({
    source: staticToolSource('built-in tools', [echo]),
    sample: { tool: 'Echo', input: { text: 'contract' }, result: 'contract' },
    missingTool: 'Nope',
  }),
);

runToolSourceContract('the built-in tools', () => {
  const crewDir = userCrew(join(fixtures, '..', 'tool-modules', 'contract-crew'));
  return Promise.resolve({
    source: builtinToolSource({
      env: {},
      crewDir,
      workspaceRoot: mkdtempSync(join(tmpdir(), 'crewd-workspace-')),
      allowPrivateTargets: false,
      crewdState: [],
    }),
    sample: { tool: 'FileReadTool', input: { file_path: 'notes.txt' }, result: 'contract\n' },
    missingTool: 'NopeTool',
  });
});

runToolSourceContract("the crew's tools/ directory, kept where users keep crews", () =>
  Promise.resolve({
    source: crewToolsSource(userCrew(join(fixtures, '..', 'tool-modules', 'contract-crew'))),
    sample: { tool: 'echo', input: { text: 'contract' }, result: 'contract' },
    missingTool: 'nope',
  }),
);

runToolSourceContract("a crewAI project's Python tools, in the project's Python", async () => {
  const crewDir = userCrew(join(fixtures, '..', 'crewai-projects', 'tool_bench'));
  const crew = await loadCrew(crewDir, { warn: () => undefined, env });
  return {
    source: new PythonToolSource(crew, { crewDir, env, timeoutMs: 60_000 }),
    sample: { tool: 'lookup_fact', input: { topic: 'contract' }, result: 'Fact: contract has 8 letters.' },
    missingTool: 'nope',
  };
});

runToolSourceContract('an MCP server over stdio', () =>
  Promise.resolve({
    source: createMcpToolSource(
      'demo',
      {
        kind: 'stdio',
        command: process.execPath,
        args: [join(fixtures, 'stdio-server.mjs')],
        env: {},
      },
      { env },
    ),
    sample: { tool: 'demo.echo', input: { text: 'contract' }, result: 'contract' },
    missingTool: 'demo.nope',
  }),
);

runToolSourceContract('an MCP server over Streamable HTTP', async () => {
  const server = await startStreamableHttpServer();
  return {
    source: createMcpToolSource('remote', { kind: 'http', url: server.url, headers: {} }, { env }),
    sample: { tool: 'remote.echo', input: { text: 'contract' }, result: 'contract' },
    missingTool: 'remote.nope',
    cleanup: () => server.close(),
  };
});

runToolSourceContract('an MCP server over a substituted transport', () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createDemoServer();
  let connected = false;
  return Promise.resolve({
    source: createMcpToolSource(
      'memory',
      { kind: 'http', url: 'http://127.0.0.1:9/unused', headers: {} },
      {
        env,
        transports: [
          {
            kind: 'in-memory',
            create: () => {
              // One linked pair: the first connection attempt uses it.
              if (!connected) void server.connect(serverSide);
              connected = true;
              return clientSide;
            },
          },
        ],
      },
    ),
    sample: { tool: 'memory.echo', input: { text: 'contract' }, result: 'contract' },
    missingTool: 'memory.nope',
    cleanup: () => server.close(),
  });
});
