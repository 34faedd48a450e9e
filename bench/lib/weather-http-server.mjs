// The example crew's weather MCP server over Streamable HTTP on loopback, for figure 8: one session per client, as
// a long-running server keeps them. Plain JavaScript, started with node alone; prints its URL once listening.
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import process from 'node:process';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createWeatherServer } from '../../examples/tools-crew/mcp/weather-server.mjs';

const sessions = new Map();

async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function handle(request, response) {
  const sessionId = request.headers['mcp-session-id'];
  const body = request.method === 'POST' ? await readJson(request) : undefined;
  let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (transport === undefined && request.method === 'POST' && isInitializeRequest(body)) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => sessions.delete(transport.sessionId);
    await createWeatherServer().connect(transport);
  }
  if (transport === undefined) {
    response.writeHead(404).end();
    return;
  }
  await transport.handleRequest(request, response, body);
}

const server = createServer((request, response) => {
  handle(request, response).catch(() => {
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
});
process.on('SIGTERM', () => process.exit(0));
