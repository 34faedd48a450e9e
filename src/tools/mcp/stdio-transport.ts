import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpTransportWithExit } from './mcp-transport.ts';

export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The child's whole environment: nothing of crewd's own is added. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  /** Each line the server writes to stderr; stderr is discarded when absent. */
  readonly onStderrLine?: ((line: string) => void) | undefined;
  /** How long a server may take to exit after SIGTERM before it is killed. */
  readonly killGraceMs?: number | undefined;
}

const maxStderrLine = 2_000;

/**
 * An MCP server as a child process speaking JSON-RPC lines on stdin/stdout. The SDK's own stdio transport always
 * adds HOME, USER, SHELL and the like from crewd's environment; this one gives the child exactly the environment it
 * is handed, which is the point of having it.
 */
export class StdioTransport implements McpTransportWithExit {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #options: StdioTransportOptions;
  readonly #readBuffer = new ReadBuffer();
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #exitReason: string | undefined;
  #closing = false;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
  }

  get exitReason(): string | undefined {
    return this.#exitReason;
  }

  /** The child's process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    if (this.#child !== undefined)
      return Promise.reject(new Error('the stdio transport was already started'));
    const { command, args, env, cwd, onStderrLine } = this.#options;
    return new Promise((resolve, reject) => {
      let spawned = false;
      const child = spawn(command, [...args], {
        env: { ...env },
        cwd,
        stdio: ['pipe', 'pipe', onStderrLine === undefined ? 'ignore' : 'pipe'],
        shell: false,
      });
      this.#child = child;
      this.#exited = new Promise((exited) => {
        child.once('close', (code, signal) => {
          this.#exitReason ??= exitReason(code, signal, this.#closing);
          this.#child = undefined;
          exited();
          if (spawned) this.onclose?.();
        });
      });
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (spawned) {
          this.onerror?.(error);
          return;
        }
        this.#exitReason = `could not start '${command}' (${error.code ?? error.message})`;
        reject(new Error(this.#exitReason));
      });
      // A server that exits while we write gives EPIPE here; its exit is reported through 'close'.
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#receive(chunk));
      if (onStderrLine !== undefined) readLines(child, onStderrLine);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin == null || !stdin.writable) return Promise.reject(new Error('the server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    this.#closing = true;
    child.stdin?.end();
    child.kill('SIGTERM');
    const grace = setTimeout(() => child.kill('SIGKILL'), this.#options.killGraceMs ?? 2_000);
    try {
      await this.#exited;
    } finally {
      clearTimeout(grace);
      this.#readBuffer.clear();
    }
  }

  #receive(chunk: Buffer): void {
    try {
      this.#readBuffer.append(chunk);
    } catch (error) {
      // A message past the buffer's limit cannot be framed again: drop the connection; the source reconnects.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      this.close().catch(() => undefined);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a server printing to stdout) is reported and skipped.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}

/**
 * Why the child ended, unless we ended it: a failing exit code counts even while closing, since a server that died
 * can be closed by the client before its exit is seen.
 */
function exitReason(
  code: number | null,
  signal: NodeJS.Signals | null,
  closing: boolean,
): string | undefined {
  if (code !== null && (code !== 0 || !closing)) return `the server exited with code ${code}`;
  if (closing) return undefined;
  return `the server was stopped by ${signal ?? 'a signal'}`;
}

function readLines(child: ChildProcess, onLine: (line: string) => void): void {
  let pending = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    if (pending.length > maxStderrLine) pending = pending.slice(0, maxStderrLine);
    for (const line of lines) if (line.trim() !== '') onLine(line.slice(0, maxStderrLine));
  });
  child.stderr?.on('end', () => {
    if (pending.trim() !== '') onLine(pending);
  });
  child.stderr?.on('error', () => undefined);
}
