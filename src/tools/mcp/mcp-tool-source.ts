import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { JsonSchema, McpServerConfig } from '../../domain/crew.ts';
import { isCrewdError } from '../../domain/errors.ts';
import type { Tool, ToolContext } from '../../engine/tool.ts';
import type { ToolSource, ToolSourceStatus } from '../tool-source.ts';
import { expandVariables } from './expand-variables.ts';
import { failureReason } from './failure-reason.ts';
import { httpTransports } from './http-transports.ts';
import type { McpTransportOption, McpTransportWithExit } from './mcp-transport.ts';
import { backoffDelayMs } from '../../domain/backoff.ts';
import type { Backoff } from '../../domain/backoff.ts';
import { displayName, parseServerUrl } from './server-url.ts';
import { stdioTransports } from './stdio-transports.ts';
import { toolResultText } from './tool-result-text.ts';
import type { McpToolResult } from './tool-result-text.ts';

export interface McpToolSourceOptions {
  /** crewd's environment: where `${VAR}` in the config's `env` and `headers` is looked up, and PATH. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger | undefined;
  /** Ways to reach the server instead of the ones its config gives (tests pass an in-memory pair). */
  readonly transports?: readonly McpTransportOption[] | undefined;
  /** Waits between reconnection attempts: doubling from `firstMs` up to `maxMs` (250 ms to 30 s unless given). */
  readonly backoff?: Backoff | undefined;
  /** Longest the MCP handshake and the tool listing may take. */
  readonly connectTimeoutMs?: number | undefined;
}

interface RemoteTool {
  readonly description: string | undefined;
  readonly inputSchema: JsonSchema;
}

const defaultTimeoutMs = 60_000;
const maxListPages = 100;
// A server that keeps failing is tried again less and less often, never in a loop.
const restartBackoff: Backoff = { firstMs: 250, maxMs: 30_000 };

/** A source that is one MCP server: it always answers `server()` for its own name. */
export interface McpToolSource extends ToolSource {
  server(reference: string): readonly Tool[] | undefined;
}

/**
 * One MCP server as a source of tools named `<name>.<tool>`. The server is reached in the background: while it is
 * down its tools stay listed as last seen and their calls fail with a message the model reads; when it stops or
 * drops the connection it is reconnected (a stdio server restarted) after a wait that doubles up to a bound.
 */
export function createMcpToolSource(
  name: string,
  config: McpServerConfig,
  options: McpToolSourceOptions,
): McpToolSource {
  return new McpServerToolSource(name, config, options);
}

class McpServerToolSource implements McpToolSource {
  readonly #name: string;
  readonly #label: string;
  readonly #config: McpServerConfig;
  readonly #options: McpToolSourceOptions;
  readonly #timeoutMs: number;
  #transports: readonly McpTransportOption[] = [];
  /** The connected client; undefined while the server is down. */
  #client: Client | undefined;
  /** A client still in its handshake, so close() can stop it. */
  #pending: Client | undefined;
  /** The tools as last listed; kept while the server is down so crews and models see the same tools. */
  #tools = new Map<string, RemoteTool>();
  #listed = false;
  #reason: string | undefined = 'not connected yet';
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;
  #onClose: () => void = () => undefined;
  /**
   * Rejects on close. A connection attempt races it: a transport closed in the middle of its handshake (an SSE
   * stream not yet open) may never settle, and close() must not wait for it.
   */
  readonly #whenClosed = new Promise<never>((_resolve, reject) => {
    this.#onClose = () => reject(new Error('closed'));
  });

  constructor(name: string, config: McpServerConfig, options: McpToolSourceOptions) {
    this.#name = name;
    this.#label = `MCP server '${displayName(name)}'`;
    this.#config = config;
    this.#options = options;
    this.#timeoutMs = config.timeoutMs ?? defaultTimeoutMs;
    this.#whenClosed.catch(() => undefined);
  }

  async open(): Promise<void> {
    if (this.#options.transports !== undefined) {
      this.#transports = this.#options.transports;
    } else {
      // A URL that is not one is a mistake in the crew's files: refused, as a tool module that does not load is.
      const url = this.#config.kind === 'http' ? parseServerUrl(this.#config.url, this.#label) : undefined;
      let settings: Record<string, string>;
      try {
        settings = expandVariables(
          this.#config.kind === 'http' ? this.#config.headers : this.#config.env,
          this.#options.env,
          this.#label,
        );
      } catch (error) {
        if (!isCrewdError(error)) throw error;
        // A `${VAR}` not set in this environment keeps the server down for good, reported like one that cannot be
        // reached: `crewd check` lists it with the rest, and `serve` refuses it unless --allow-partial.
        const prefix = `${this.#label}: `;
        this.#reason = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
        return;
      }
      this.#transports = this.#configuredTransports(url, settings);
    }
    await this.#attempt();
  }

  find(name: string): Tool | undefined {
    const prefix = `${this.#name}.`;
    if (!name.startsWith(prefix)) return undefined;
    const remoteName = name.slice(prefix.length);
    const remote = this.#tools.get(remoteName);
    if (remote !== undefined) return this.#tool(remoteName, remote);
    // A server that is down (or has not answered yet) may well have the tool: a crew naming it still loads, and
    // its calls say why they fail. A server that is up and listed has told us it has no such tool.
    if (this.#client !== undefined && this.#listed) return undefined;
    return this.#tool(remoteName, {
      description: `Tool '${remoteName}' of ${this.#label}, which cannot be reached now.`,
      inputSchema: { type: 'object' },
    });
  }

  names(): readonly string[] {
    return [...this.#tools.keys()].map((remoteName) => `${this.#name}.${remoteName}`);
  }

  server(reference: string): readonly Tool[] | undefined {
    if (reference === this.#name) {
      return [...this.#tools].map(([remoteName, remote]) => this.#tool(remoteName, remote));
    }
    if (!reference.startsWith(`${this.#name}#`)) return undefined;
    const tool = this.find(`${this.#name}.${reference.slice(this.#name.length + 1)}`);
    return tool === undefined ? [] : [tool];
  }

  status(): ToolSourceStatus {
    const address = this.#address();
    const where = address === undefined ? {} : { address };
    if (this.#client !== undefined) return { label: this.#label, up: true, ...where };
    return { label: this.#label, up: false, reason: this.#reason ?? 'not connected', ...where };
  }

  /** The URL of an HTTP server whose name is not already its URL (crew.py names servers by their host). */
  #address(): string | undefined {
    if (this.#config.kind !== 'http') return undefined;
    const url = displayName(this.#config.url);
    return url === displayName(this.#name) ? undefined : url;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#onClose();
    clearTimeout(this.#retry);
    this.#retry = undefined;
    const clients = [this.#client, this.#pending].filter((client) => client !== undefined);
    this.#client = undefined;
    this.#pending = undefined;
    this.#reason = 'closed';
    await Promise.allSettled(clients.map((client) => client.close()));
    await this.#connecting;
  }

  /** How to reach the server: `url` for an HTTP server, `settings` its headers or a stdio server's environment. */
  #configuredTransports(
    url: URL | undefined,
    settings: Readonly<Record<string, string>>,
  ): readonly McpTransportOption[] {
    const config = this.#config;
    if (config.kind === 'http') return httpTransports(url!, settings);
    const env = this.#options.env;
    const logger = this.#options.logger;
    return stdioTransports({
      command: config.command,
      args: config.args,
      // PATH only so the command resolves as it would in a shell; everything else must be named in the config.
      env: { ...(env.PATH === undefined ? {} : { PATH: env.PATH }), ...settings },
      cwd: config.cwd,
      onStderrLine:
        logger === undefined
          ? undefined
          : (line) => logger.info({ mcpServer: this.#name, stderr: line }, 'MCP server output'),
    });
  }

  /** One connection attempt that never rejects: a failure schedules the next one. */
  #attempt(): Promise<void> {
    this.#connecting ??= this.#connect().then(
      () => {
        this.#connecting = undefined;
      },
      (error: unknown) => {
        this.#connecting = undefined;
        if (this.#closed) return;
        this.#reason = failureReason(error);
        this.#options.logger?.warn(
          { mcpServer: this.#name, reason: this.#reason },
          'MCP server is not reachable',
        );
        this.#scheduleRetry();
      },
    );
    return this.#connecting;
  }

  async #connect(): Promise<void> {
    let firstError: unknown;
    for (const option of this.#transports) {
      if (this.#closed) return;
      const client = new Client({ name: 'crewd', version: '1.0.0' }, { capabilities: {} });
      const transport = option.create() as McpTransportWithExit;
      this.#pending = client;
      try {
        const requestOptions = { timeout: this.#options.connectTimeoutMs ?? 30_000 };
        await Promise.race([client.connect(transport, requestOptions), this.#whenClosed]);
        this.#tools = await Promise.race([listTools(client, requestOptions), this.#whenClosed]);
        this.#listed = true;
      } catch (error) {
        // Closing waits for a stdio child to end, so its exit code is known before the failure is described.
        await client.close().catch(() => undefined);
        firstError ??= transport.exitReason === undefined ? error : new Error(transport.exitReason);
        continue;
      } finally {
        this.#pending = undefined;
      }
      if (this.#closed) {
        await client.close().catch(() => undefined);
        return;
      }
      this.#attach(client, transport);
      this.#options.logger?.info({ mcpServer: this.#name, transport: option.kind }, 'MCP server connected');
      return;
    }
    throw firstError instanceof Error
      ? firstError
      : new Error(failureReason(firstError ?? 'no way to reach it is configured'));
  }

  #attach(client: Client, transport: McpTransportWithExit): void {
    this.#client = client;
    this.#reason = undefined;
    client.onclose = () => {
      if (this.#client === client) this.#lost(transport.exitReason ?? 'the server closed the connection');
    };
    client.onerror = (error) =>
      this.#options.logger?.debug({ mcpServer: this.#name, err: error }, 'MCP transport error');
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        const tools = await listTools(client, { timeout: this.#options.connectTimeoutMs ?? 30_000 });
        if (this.#client === client) this.#tools = tools;
      } catch (error) {
        this.#options.logger?.warn(
          { mcpServer: this.#name, reason: failureReason(error) },
          'MCP tool listing failed',
        );
      }
    });
  }

  /** The connection is gone: calls fail with `reason` until a reconnection succeeds. */
  #lost(reason: string): void {
    const client = this.#client;
    this.#client = undefined;
    this.#reason = reason;
    this.#options.logger?.warn({ mcpServer: this.#name, reason }, 'MCP server connection lost');
    client?.close().catch(() => undefined);
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry !== undefined || this.#connecting !== undefined) return;
    const delay = backoffDelayMs(this.#failures, this.#options.backoff ?? restartBackoff);
    this.#failures += 1;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#attempt();
    }, delay);
    // A server that stays down must not keep crewd alive on shutdown.
    this.#retry.unref();
  }

  #tool(remoteName: string, remote: RemoteTool): Tool {
    return {
      name: `${this.#name}.${remoteName}`,
      description: remote.description ?? `Tool '${remoteName}' of ${this.#label}.`,
      inputSchema: remote.inputSchema,
      timeoutMs: this.#timeoutMs,
      run: (input, context) => this.#call(remoteName, input, context),
    };
  }

  async #call(remoteName: string, input: unknown, context: ToolContext): Promise<string> {
    const client = this.#client;
    if (client === undefined)
      throw new Error(`${this.#label} is not reachable: ${this.#reason ?? 'not connected'}`);
    let result: McpToolResult;
    try {
      result = await client.callTool(
        { name: remoteName, arguments: isRecord(input) ? input : {} },
        undefined,
        { signal: context.abortSignal, timeout: this.#timeoutMs, maxTotalTimeout: this.#timeoutMs },
      );
    } catch (error) {
      context.abortSignal.throwIfAborted();
      throw this.#callError(client, error);
    }
    this.#failures = 0;
    return toolResultText(result);
  }

  #callError(client: Client, error: unknown): Error {
    if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
      return new Error(`${this.#label} did not answer within ${seconds(this.#timeoutMs)}`);
    }
    if (
      this.#client !== client ||
      (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number))
    ) {
      return new Error(`${this.#label} stopped during the call: ${this.#reason ?? 'the connection closed'}`);
    }
    // The server answered with a JSON-RPC error (no such tool, bad arguments): the connection is fine.
    if (error instanceof McpError) return new Error(`${this.#label} refused the call: ${error.message}`);
    // Anything else is the transport failing (an HTTP server gone): reconnect, which re-initializes the session.
    const reason = failureReason(error);
    this.#lost(reason);
    return new Error(`${this.#label} is not reachable: ${reason}`);
  }
}

async function listTools(
  client: Client,
  requestOptions: { readonly timeout: number },
): Promise<Map<string, RemoteTool>> {
  const tools = new Map<string, RemoteTool>();
  let cursor: string | undefined;
  for (let page = 0; page < maxListPages; page += 1) {
    const listing = await client.listTools(cursor === undefined ? {} : { cursor }, requestOptions);
    for (const tool of listing.tools) {
      tools.set(tool.name, { description: tool.description, inputSchema: tool.inputSchema });
    }
    cursor = listing.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
