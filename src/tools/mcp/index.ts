export { createMcpToolSource } from './mcp-tool-source.ts';
export type { McpToolSource, McpToolSourceOptions } from './mcp-tool-source.ts';
export type { McpTransportOption } from './mcp-transport.ts';
