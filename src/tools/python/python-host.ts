import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { answerMessage, readyMessage } from './host-protocol.ts';
import type { Answer, HostRequest, ReadyMessage } from './host-protocol.ts';

export interface PythonHostOptions {
  readonly command: string;
  readonly script: string;
  /** Passed to the script as its one argument (JSON). */
  readonly config: Readonly<Record<string, unknown>>;
  /** The host's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Each line the host (its tools' prints included) writes to stderr. */
  readonly onStderrLine?: ((line: string) => void) | undefined;
}

/** Why a host could not start or stopped, in words for the operator and the model. */
export class PythonHostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PythonHostError';
  }
}

const maxStderrLine = 2_000;
const keptStderrLines = 20;

/** One running Python tool host: a child process answering requests by id, one JSON object per line each way. */
export class PythonHost {
  readonly ready: ReadyMessage;
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (answer: Answer) => void; reject: (error: Error) => void }
  >();
  readonly #exited: Promise<void>;
  #nextId = 1;
  #exitReason: string | undefined;

  private constructor(child: ChildProcess, ready: ReadyMessage, lines: LineReader, exited: Promise<string>) {
    this.#child = child;
    this.ready = ready;
    lines.onLine = (line) => this.#receive(line);
    this.#exited = exited.then((reason) => {
      this.#exitReason = reason;
      for (const { reject } of this.#pending.values()) reject(new PythonHostError(reason));
      this.#pending.clear();
    });
  }

  /** Starts the interpreter and waits for the host's first line; rejects with what stopped it. */
  static start(options: PythonHostOptions): Promise<PythonHost> {
    return new Promise((resolve, reject) => {
      const stderr: string[] = [];
      const child = spawn(options.command, [options.script, JSON.stringify(options.config)], {
        env: { ...options.env },
        cwd: options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
      });
      let started = false;
      const exited = new Promise<string>((settle) => {
        child.once('close', (code, signal) =>
          settle(
            code === null
              ? `the Python tool host was stopped by ${signal ?? 'a signal'}`
              : `the Python tool host exited with code ${code}`,
          ),
        );
      });
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (started) return;
        started = true;
        reject(new PythonHostError(`could not start '${options.command}' (${error.code ?? error.message})`));
      });
      child.stdin?.on('error', () => undefined);
      readStderr(child, (line) => {
        stderr.push(line);
        if (stderr.length > keptStderrLines) stderr.shift();
        options.onStderrLine?.(line);
      });
      const lines = new LineReader(child);
      lines.onLine = (line) => {
        if (started) return;
        started = true;
        const parsed = readyMessage.safeParse(parseJson(line));
        if (!parsed.success) {
          child.kill('SIGKILL');
          reject(
            new PythonHostError(
              `'${options.command}' did not start crewd's tool host: ${line.slice(0, 200)}`,
            ),
          );
          return;
        }
        resolve(new PythonHost(child, parsed.data, lines, exited));
      };
      void exited.then((reason) => {
        if (started) return;
        started = true;
        const said = stderr
          .filter((line) => line.trim() !== '')
          .slice(-3)
          .join(' | ');
        reject(
          new PythonHostError(
            `'${options.command}' ${reason.replace('the Python tool host ', '')}${said === '' ? '' : `: ${said}`}`,
          ),
        );
      });
    });
  }

  /** Whether the host still runs. */
  get alive(): boolean {
    return this.#exitReason === undefined;
  }

  /** Requests sent and not yet answered or forgotten. */
  get pending(): number {
    return this.#pending.size;
  }

  /** The process id, for tests that kill it. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Sends a request; `onSent` gets its id (to `forget` it). Rejects with `PythonHostError` if the host stops first. */
  request(message: HostRequest, onSent?: (id: number) => void): Promise<Answer> {
    if (this.#exitReason !== undefined) return Promise.reject(new PythonHostError(this.#exitReason));
    const id = this.#nextId++;
    onSent?.(id);
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.stdin?.write(`${JSON.stringify({ ...message, id })}\n`);
    });
  }

  /** Stops waiting for the answer to `id` (a call past its time): whatever the host answers later is dropped. */
  forget(id: number): void {
    this.#pending.delete(id);
  }

  /** Kills the host at once, with whatever it is running. */
  kill(): Promise<void> {
    if (this.#exitReason === undefined) this.#child.kill('SIGKILL');
    return this.#exited;
  }

  /** Ends the host: stdin closes (calls under way finish), and it is killed if it has not exited within `graceMs`. */
  async close(graceMs: number): Promise<void> {
    if (this.#exitReason !== undefined) return;
    this.#child.stdin?.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    try {
      await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `callback` once the host has exited, with the reason. */
  onExit(callback: (reason: string) => void): void {
    void this.#exited.then(() => callback(this.#exitReason ?? 'the Python tool host exited'));
  }

  #receive(line: string): void {
    const parsed = answerMessage.safeParse(parseJson(line));
    if (!parsed.success) return;
    const waiting = this.#pending.get(parsed.data.id);
    if (waiting === undefined) return;
    this.#pending.delete(parsed.data.id);
    waiting.resolve(parsed.data);
  }
}

/** The host's stdout, line by line. */
class LineReader {
  onLine: (line: string) => void = () => undefined;
  #pending = '';

  constructor(child: ChildProcess) {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => {
      const lines = (this.#pending + text).split('\n');
      this.#pending = lines.pop() ?? '';
      for (const line of lines) if (line !== '') this.onLine(line);
    });
    child.stdout?.on('error', () => undefined);
  }
}

function readStderr(child: ChildProcess, onLine: (line: string) => void): void {
  let pending = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    if (pending.length > maxStderrLine) pending = pending.slice(0, maxStderrLine);
    for (const line of lines) onLine(line.slice(0, maxStderrLine));
  });
  child.stderr?.on('error', () => undefined);
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}
