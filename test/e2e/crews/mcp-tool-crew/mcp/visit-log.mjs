// An MCP server over stdio with one tool that appends a line per call to the file VISIT_LOG names: a side effect a
// crash test can count across crewd's restarts.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'visit-log', version: '1.0.0' });
server.registerTool(
  'record_visit',
  { description: 'Records a visit to a city in the visit log', inputSchema: { city: z.string() } },
  ({ city }) => {
    appendFileSync(process.env.VISIT_LOG ?? 'visits.log', `mcp ${city}\n`);
    return { content: [{ type: 'text', text: `Visit to ${city} recorded.` }] };
  },
);
await server.connect(new StdioServerTransport());
