import { z } from 'zod';

const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }), {
  error: 'must be a mapping of names to strings',
});

const timeout = z
  .number({ error: 'must be a number of seconds' })
  .positive({ error: 'must be more than 0 seconds' })
  .nullish();

const stdioServer = z.strictObject({
  command: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
  args: z.array(z.string({ error: 'must be a string' }), { error: 'must be a list of strings' }).nullish(),
  env: stringMap.nullish(),
  cwd: z.string({ error: 'must be a string' }).nullish(),
  timeout,
});

const httpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }),
  headers: stringMap.nullish(),
  timeout,
});

/** One server of crew.yaml's `mcp_servers`: a command to start (stdio) or a URL (Streamable HTTP, then SSE). */
export const mcpServerSchema = z.union([stdioServer, httpServer], {
  error: (issue) =>
    issue.code === 'invalid_union' && typeof issue.input === 'object' && issue.input !== null
      ? 'must have either a command (with args, env, cwd, timeout) or a url (with headers, timeout)'
      : 'must be a mapping with a command or a url',
});

/** crew.yaml's `mcp_servers`, by the name agents and tasks use (`<name>.<tool>`, `mcps: [<name>]`). */
export const mcpServersSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9_-]+$/, { error: 'server names use letters, digits, _ and - only' }),
    mcpServerSchema,
    { error: 'must be a mapping of server names to servers' },
  )
  .nullish();

export type McpServerEntry = z.infer<typeof mcpServerSchema>;
