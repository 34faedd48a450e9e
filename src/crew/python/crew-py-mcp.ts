import { canonicalJson } from '../../domain/canonical-json.ts';
import { excerpt } from './python-value.ts';
import type { PythonValue } from './python-value.ts';

/** A server as crew.yaml's `mcp_servers` would declare it: `{command, args, env}` or `{url, headers}`. */
export type McpServerDeclaration =
  | { readonly command: string; readonly args?: readonly string[]; readonly env?: Record<string, string> }
  | { readonly url: string; readonly headers?: Record<string, string> };

/** A server read from crew.py, or why it cannot be. */
export type McpServerReading = { readonly server: McpServerDeclaration } | { readonly problem: string };

const stdioClasses = ['StdioServerParameters', 'MCPServerStdio'];
const httpClasses = ['MCPServerHTTP', 'MCPServerSSE'];

/**
 * An MCP server as crewAI's forms write one, read statically: a dict `{"url": ..., "transport": "sse" |
 * "streamable-http", "headers": ...}` (MCPServerAdapter's), `StdioServerParameters(command=, args=, env=)`, or the
 * `crewai.mcp` classes `MCPServerStdio`, `MCPServerHTTP` and `MCPServerSSE`. crewd speaks Streamable HTTP and falls
 * back to SSE by itself, so `transport` needs no mapping.
 */
export function readMcpServer(value: PythonValue): McpServerReading {
  if (value.kind === 'data' && isRecord(value.value)) return fromMapping(value.value, excerpt(value.node));
  if (value.kind === 'call') {
    const className = value.callee.name.split('.').pop() ?? value.callee.name;
    if (![...stdioClasses, ...httpClasses].includes(className)) {
      return { problem: `\`${excerpt(value.node)}\` is not an MCP server crewd can read` };
    }
    const settings: Record<string, unknown> = {};
    for (const [key, argument] of value.kwargs) {
      if (argument.kind !== 'data') {
        return {
          problem: `${className}'s ${key} \`${excerpt(argument.node)}\` cannot be read statically; write it literally or declare the server under mcp_servers in crew.yaml`,
        };
      }
      settings[key] = argument.value;
    }
    if (value.args.length > 0)
      return { problem: `${className}: give its settings by keyword (command=, url=)` };
    return fromMapping(settings, excerpt(value.node));
  }
  return {
    problem: `\`${excerpt(value.node)}\` cannot be read statically; write the server literally or declare it under mcp_servers in crew.yaml`,
  };
}

function fromMapping(settings: Record<string, unknown>, text: string): McpServerReading {
  const { command, args, env, url, headers } = settings;
  if (typeof command === 'string') {
    if (args !== undefined && args !== null && !isStringList(args))
      return { problem: `${text}: args must be a list of strings` };
    if (env !== undefined && env !== null && !isStringMap(env))
      return { problem: `${text}: env must map names to strings` };
    return {
      server: {
        command,
        ...(isStringList(args) ? { args } : {}),
        ...(isStringMap(env) ? { env } : {}),
      },
    };
  }
  if (typeof url === 'string') {
    if (headers !== undefined && headers !== null && !isStringMap(headers))
      return { problem: `${text}: headers must map names to strings` };
    return { server: { url, ...(isStringMap(headers) ? { headers } : {}) } };
  }
  return { problem: `${text} has neither a command nor a url` };
}

/**
 * Names crew.py's servers the way crew.yaml would: from the script a command runs, or a URL's host, made unique.
 * The same server written twice gets one name.
 */
export class McpServerNames {
  readonly servers: Record<string, McpServerDeclaration> = {};
  readonly #byKey = new Map<string, string>();

  nameOf(server: McpServerDeclaration): string {
    const key = canonicalJson(server);
    const known = this.#byKey.get(key);
    if (known !== undefined) return known;
    const base = baseName(server);
    let name = base;
    for (let counter = 2; Object.hasOwn(this.servers, name); counter += 1) name = `${base}_${counter}`;
    this.servers[name] = server;
    this.#byKey.set(key, name);
    return name;
  }
}

function baseName(server: McpServerDeclaration): string {
  let source: string;
  if ('url' in server) {
    const host = URL.canParse(server.url) ? new URL(server.url).hostname : '';
    // `mcp.exa.ai` → exa; an address or a single name says little, so it becomes `mcp`.
    source = /^[\d.]+$|^\[|^localhost$/.test(host) ? 'mcp' : (host.split('.').slice(-2, -1)[0] ?? 'mcp');
  } else {
    const script = [...(server.args ?? [])].reverse().find((arg) => !arg.startsWith('-'));
    source =
      (script ?? server.command)
        .split(/[\\/]/)
        .pop()
        ?.replace(/\.[A-Za-z0-9]+$/, '') ?? 'mcp';
  }
  const cleaned = source.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^[_-]+|[_-]+$/g, '');
  return cleaned === '' ? 'mcp' : cleaned;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === 'string');
}
