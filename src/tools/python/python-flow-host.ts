import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { hostEnvironment } from './host-environment.ts';
import type { FlowActionRequest } from './host-protocol.ts';
import { PythonHost } from './python-host.ts';
import { pythonInterpreter } from './python-interpreter.ts';
import type { PythonInterpreter } from './python-interpreter.ts';

const pythonDir = fileURLToPath(new URL('../../../python/', import.meta.url));
const hostScript = path.join(pythonDir, 'crewd_tool_host.py');
const shimDir = path.join(pythonDir, 'crewai_shim');
const closeGraceMs = 2_000;

export interface PythonFlowHostOptions {
  /** The flow's project root: the host runs there, and its `.venv/` is looked for. */
  readonly projectRoot: string;
  /** Where the project's packages are (a crewAI project's `src/`): put on `sys.path`. */
  readonly sourceRoot: string;
  /** crewd's environment with the project's `.env` beneath it; crewd's own variables never reach the host. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger | undefined;
}

/** What a flow's Python part answered: its result, and the state it left when it could change it. */
export interface FlowActionAnswer {
  readonly value: unknown;
  readonly state: Readonly<Record<string, unknown>> | undefined;
}

/** A flow's Python failed: the Python error, with the project file and line it passed through last. */
export class PythonFlowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PythonFlowError';
  }
}

/**
 * Runs a crewAI flow's Python parts (`code`, `tool` and `script` actions, a Pydantic state class) in the project's
 * Python, through the same host script as the project's tools, in a process of its own. A host that dies, or whose
 * call is abandoned, is replaced at the next request.
 */
export class PythonFlowHost {
  readonly #options: PythonFlowHostOptions;
  readonly #interpreter: PythonInterpreter;
  #host: PythonHost;
  #closed = false;

  private constructor(options: PythonFlowHostOptions, interpreter: PythonInterpreter, host: PythonHost) {
    this.#options = options;
    this.#interpreter = interpreter;
    this.#host = host;
  }

  /** Starts the project's Python; rejects with why it cannot (no interpreter, a broken `.venv`). */
  static async open(options: PythonFlowHostOptions): Promise<PythonFlowHost> {
    const interpreter = await pythonInterpreter([options.projectRoot], options.env);
    return new PythonFlowHost(options, interpreter, await start(options, interpreter));
  }

  /** The interpreter and where it was chosen from, for messages and `crewd check`. */
  get description(): string {
    const { command, source } = this.#interpreter;
    return `${command} (from ${source}), Python ${this.#host.ready.python}`;
  }

  /** Sends one request; rejects with a PythonFlowError carrying the Python error. Abort kills the host. */
  async request(request: FlowActionRequest, signal?: AbortSignal): Promise<FlowActionAnswer> {
    if (this.#closed) throw new PythonFlowError('the Python host is shut down');
    signal?.throwIfAborted();
    if (!this.#host.alive) this.#host = await start(this.#options, this.#interpreter);
    const host = this.#host;
    const abandon = (): void => void host.kill();
    signal?.addEventListener('abort', abandon, { once: true });
    try {
      const answer = await host.request(request);
      if (!answer.ok) {
        const place =
          answer.file === undefined
            ? ''
            : ` (${answer.file}${answer.line === undefined ? '' : `:${answer.line}`})`;
        throw new PythonFlowError(`${answer.error}${place}`);
      }
      return { value: answer.value ?? null, state: answer.state };
    } finally {
      signal?.removeEventListener('abort', abandon);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#host.close(closeGraceMs);
  }
}

function start(options: PythonFlowHostOptions, interpreter: PythonInterpreter): Promise<PythonHost> {
  const logger = options.logger;
  return PythonHost.start({
    command: interpreter.command,
    script: hostScript,
    config: {
      projectRoot: path.resolve(options.projectRoot),
      shim: shimDir,
      paths: [...new Set([path.resolve(options.sourceRoot), path.resolve(options.projectRoot)])],
    },
    env: hostEnvironment(options.env),
    cwd: options.projectRoot,
    onStderrLine:
      logger === undefined ? undefined : (line) => logger.info({ stderr: line }, 'Python flow output'),
  });
}
