import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import type { ToolContext } from '../../src/engine/tool.ts';
import { createMcpToolSource } from '../../src/tools/mcp/index.ts';
import type { McpToolSource } from '../../src/tools/mcp/index.ts';

const exampleDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'tools-crew');
const context: ToolContext = {
  toolCallId: 'call-1',
  executionId: 'exec-1',
  taskId: 'task',
  agent: 'agent',
  abortSignal: new AbortController().signal,
};

let source: McpToolSource | undefined;

afterEach(async () => {
  await source?.close();
});

it("runs the example crew's weather MCP server with plain node, as crew.yaml declares it", async () => {
  source = createMcpToolSource(
    'weather',
    { kind: 'stdio', command: 'node', args: ['mcp/weather-lookup.mjs'], env: {}, cwd: exampleDir },
    { env: { PATH: process.env.PATH } },
  );
  await source.open();

  expect(source.status()).toEqual({ label: "MCP server 'weather'", up: true });
  expect(source.names()).toEqual(['weather.forecast', 'weather.list_cities']);
  await expect(source.find('weather.forecast')!.run({ city: 'lisbon' }, context)).resolves.toBe(
    'Lisbon tomorrow: sunny, high 24 °C, low 16 °C, wind 14 km/h.',
  );
  await expect(source.find('weather.forecast')!.run({ city: 'Atlantis' }, context)).rejects.toThrow(
    "No forecast for 'Atlantis'. Known cities: Lisbon, Oslo, Nairobi, Tokyo, Lima, Montreal.",
  );
});
