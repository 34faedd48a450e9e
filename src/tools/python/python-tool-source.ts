import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { canonicalJson } from '../../domain/canonical-json.ts';
import { positionalArgumentsKey } from '../../domain/crew.ts';
import type { CrewDefinition, PythonToolReference } from '../../domain/crew.ts';
import { CrewdError, CrewLoadError } from '../../domain/errors.ts';
import type { Tool, ToolContext } from '../../engine/tool.ts';
import { isBuiltinToolName } from '../builtin/builtin-tool-source.ts';
import type { ToolSource, ToolSourceStatus } from '../tool-source.ts';
import { crewaiToolName } from './crewai-tool-name.ts';
import { hostEnvironment } from './host-environment.ts';
import type { BuildRequest } from './host-protocol.ts';
import { PythonHost, PythonHostError } from './python-host.ts';
import { pythonInterpreter } from './python-interpreter.ts';
import type { PythonInterpreter } from './python-interpreter.ts';

/** The host script and crewd's stand-in for `crewai.tools`: shipped beside `src/` and `dist/` alike. */
const pythonDir = fileURLToPath(new URL('../../../python/', import.meta.url));
const hostScript = path.join(pythonDir, 'crewd_tool_host.py');
const shimDir = path.join(pythonDir, 'crewai_shim');

/** The longest result the host sends back; the tool box cuts what the model sees much shorter. */
const maxResultChars = 1_000_000;
const closeGraceMs = 2_000;

export interface PythonToolSourceOptions {
  /** The crew directory or project root crewd was given: the host runs there, and its `.venv/` is looked for. */
  readonly crewDir: string;
  /** The directory a version copied to `crewDir` was served from: its `.venv/` is looked for after `crewDir`'s. */
  readonly servedDir?: string;
  /** crewd's environment with the project's `.env` beneath it; crewd's own variables never reach the host. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Longest one call may take (`CREWD_PYTHON_TOOL_TIMEOUT`). */
  readonly timeoutMs: number;
  /** A source of higher precedence (the crew's tools/): a tool it provides is not built here, once it has opened. */
  readonly shadowedBy?: { readonly opened: () => Promise<void>; readonly has: (name: string) => boolean };
  readonly logger?: Logger | undefined;
}

/** One instance crew.py builds: a tool with one set of constructor arguments. */
interface Instance {
  readonly key: string;
  readonly name: string;
  readonly reference: PythonToolReference;
  readonly presets: Readonly<Record<string, unknown>>;
  readonly request: BuildRequest;
}

/**
 * A crewAI project's Python tools run in the project's Python: a host process crewd starts per crew (and per crewd
 * process) imports the modules crew.py takes its tools from, builds each tool with crew.py's arguments, and serves
 * the calls. A host that dies is started again (and its tools built again) at the next call; a call past its time is
 * abandoned and its host replaced once nothing else runs on it. A tool that cannot be imported or built stops the crew
 * from opening, with its file and line and the Python error.
 */
export class PythonToolSource implements ToolSource {
  readonly #crew: CrewDefinition;
  readonly #options: PythonToolSourceOptions;
  readonly #tools = new Map<string, Tool>();
  readonly #byName = new Map<string, Tool>();
  readonly #instances: Instance[] = [];
  readonly #retired = new Set<PythonHost>();
  readonly #crewaiNames = new Map<string, string>();
  #interpreter: PythonInterpreter | undefined;
  #host: PythonHost | undefined;
  #starting: Promise<PythonHost> | undefined;
  #lastFailure: string | undefined;
  #runtime: string | undefined;
  #closed = false;

  constructor(crew: CrewDefinition, options: PythonToolSourceOptions) {
    this.#crew = crew;
    this.#options = options;
  }

  async open(): Promise<void> {
    const python = this.#crew.pythonTools;
    if (python === undefined) return;
    if (this.#options.shadowedBy !== undefined)
      await this.#options.shadowedBy.opened().catch(() => undefined);
    const instances = instancesOf(this.#crew).filter(
      (instance) => !this.#options.shadowedBy?.has(instance.name),
    );
    if (instances.length === 0) return;
    const projectRoot = path.dirname(python.sourceRoot);
    const { crewDir, servedDir } = this.#options;
    // A copied version's project root lies where the served directory's does: the same path from the crew.
    const servedRoots =
      servedDir === undefined
        ? []
        : [servedDir, path.resolve(servedDir, path.relative(crewDir, projectRoot))];
    this.#interpreter = await pythonInterpreter([crewDir, projectRoot, ...servedRoots], this.#options.env);
    let host: PythonHost;
    try {
      host = await this.#start();
    } catch (error) {
      const custom = instances.find((instance) => !standsIn(instance));
      if (custom === undefined) {
        // Only crewAI's own tools were wanted from Python: crewd's TypeScript ones stand in.
        this.#options.logger?.info(
          { reason: messageOf(error) },
          'No Python for crewai_tools; using the built-in tools',
        );
        this.#lastFailure = undefined;
        return;
      }
      throw refusal(custom, `${this.#interpreterText()} cannot run it: ${messageOf(error)}`);
    }
    try {
      for (const instance of instances) {
        const answer = await host.request(instance.request);
        if (answer.ok) {
          const tool = this.#tool(
            instance,
            answer.name ?? instance.name,
            answer.description ?? '',
            answer.schema,
          );
          this.#tools.set(instance.key, tool);
          this.#instances.push(instance);
          if (!this.#byName.has(instance.name) || Object.keys(instance.presets).length === 0)
            this.#byName.set(instance.name, tool);
          continue;
        }
        // A crewai_tools tool the project's Python does not have: crewd's TypeScript one stands in, if it has one.
        if (answer.absent === true && standsIn(instance)) continue;
        if (answer.absent === true) {
          throw refusal(
            instance,
            `${this.#interpreterText()} has no crewai_tools with it (${answer.error}), and crewd has no built-in ` +
              "tool of that name: install crewai-tools in the project's Python (crewai install) or set CREWD_PYTHON",
          );
        }
        const place =
          answer.file === undefined
            ? ''
            : ` (${answer.file}${answer.line === undefined ? '' : `:${answer.line}`})`;
        throw refusal(instance, `${this.#interpreterText()} cannot build it: ${answer.error}${place}`);
      }
    } catch (error) {
      await this.close();
      throw error;
    }
    if (this.#tools.size === 0) await this.close();
  }

  find(name: string): Tool | undefined {
    return this.#byName.get(name);
  }

  names(): readonly string[] {
    return [...this.#byName.keys()];
  }

  withPresets(name: string, presets: Readonly<Record<string, unknown>>): Tool | undefined {
    return this.#tools.get(instanceKey(name, presets));
  }

  status(): ToolSourceStatus {
    return {
      label: 'Python tools',
      up: this.#lastFailure === undefined,
      ...(this.#lastFailure === undefined ? {} : { reason: this.#lastFailure }),
      ...(this.#byName.size === 0 ? {} : { listing: this.#listing() }),
    };
  }

  /** The tools built, each with where it is defined, then what runs them: for `crewd check`. */
  #listing(): string[] {
    const tools = this.#crew.pythonTools?.tools ?? {};
    const lines = [...this.#byName].map(([name, tool]) => {
      const reference = tools[name];
      const where =
        reference?.origin ?? `${reference?.module ?? 'crewai_tools'}.${reference?.attribute ?? name}`;
      const offered = tool.modelName === undefined ? '' : `, offered to the model as ${tool.modelName}`;
      return `${name} ("${this.#crewaiNames.get(name) ?? name}"${offered}) at ${where}`;
    });
    lines.push(`run by ${this.#interpreterText()}${this.#runtime === undefined ? '' : `: ${this.#runtime}`}`);
    return lines;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const hosts = [...this.#retired, ...(this.#host === undefined ? [] : [this.#host])];
    const starting = this.#starting;
    this.#host = undefined;
    this.#retired.clear();
    await Promise.allSettled(hosts.map((host) => host.close(closeGraceMs)));
    if (starting !== undefined)
      await starting.then((host) => host.close(closeGraceMs)).catch(() => undefined);
  }

  #interpreterText(): string {
    const interpreter = this.#interpreter;
    return interpreter === undefined ? 'python' : `${interpreter.command} (from ${interpreter.source})`;
  }

  /** `crewaiName` is the tool's own `name`: the model is offered it as crewAI offers it; steps use crew.py's. */
  #tool(
    instance: Instance,
    crewaiName: string,
    description: string,
    schema: Record<string, unknown> | undefined,
  ): Tool {
    this.#crewaiNames.set(instance.name, crewaiName);
    return {
      name: instance.name,
      modelName: crewaiToolName(crewaiName),
      ...(Object.keys(instance.presets).length === 0
        ? {}
        : { cacheKey: `${instance.name}(${canonicalJson(instance.presets)})` }),
      description,
      inputSchema: schema ?? { type: 'object', properties: {} },
      timeoutMs: this.#options.timeoutMs,
      run: (input, context) => this.#call(instance, input, context),
    };
  }

  async #call(instance: Instance, input: unknown, context: ToolContext): Promise<string> {
    const host = await this.#running();
    let sent: number | undefined;
    const abandon = (): void => {
      if (sent !== undefined) host.forget(sent);
      // The call may still run in Python: its result is dropped, and the host is replaced.
      this.#retire(host);
    };
    context.abortSignal.addEventListener('abort', abandon, { once: true });
    try {
      const answer = await host.request({ op: 'call', key: instance.key, input: input ?? {} }, (id) => {
        sent = id;
      });
      if (!answer.ok) throw new Error(answer.error);
      return answer.result ?? '';
    } catch (error) {
      if (error instanceof PythonHostError)
        throw new Error(`${error.message} during the call; it is started again for the next one`);
      throw error;
    } finally {
      context.abortSignal.removeEventListener('abort', abandon);
      if (this.#retired.has(host) && host.pending === 0) this.#kill(host);
    }
  }

  /** The host for the next call: the running one, or a new one with every tool built again. */
  #running(): Promise<PythonHost> {
    if (this.#closed) return Promise.reject(new Error('the Python tool host is shut down'));
    if (this.#host?.alive === true) return Promise.resolve(this.#host);
    this.#starting ??= this.#start()
      .then(async (host) => {
        for (const instance of this.#instances) {
          const answer = await host.request(instance.request);
          if (!answer.ok) {
            await host.kill();
            throw new Error(`${instance.name} could not be built again: ${answer.error}`);
          }
        }
        return host;
      })
      .finally(() => {
        this.#starting = undefined;
      });
    return this.#starting;
  }

  async #start(): Promise<PythonHost> {
    const python = this.#crew.pythonTools;
    const interpreter = this.#interpreter;
    if (python === undefined || interpreter === undefined) throw new Error('no Python tools to run');
    const projectRoot = path.resolve(path.dirname(python.sourceRoot));
    const logger = this.#options.logger;
    let host: PythonHost;
    try {
      host = await PythonHost.start({
        command: interpreter.command,
        script: hostScript,
        config: { projectRoot, shim: shimDir, paths: [path.resolve(python.sourceRoot)], maxResultChars },
        env: hostEnvironment(this.#options.env),
        cwd: projectRoot,
        onStderrLine:
          logger === undefined ? undefined : (line) => logger.info({ stderr: line }, 'Python tool output'),
      });
    } catch (error) {
      this.#lastFailure = messageOf(error);
      throw error;
    }
    this.#lastFailure = undefined;
    this.#runtime = `Python ${host.ready.python}, ${host.ready.crewai === 'project' ? "the project's crewAI" : "crewd's stand-in for crewai.tools"}`;
    this.#host = host;
    host.onExit((reason) => {
      this.#retired.delete(host);
      if (this.#host !== host) return;
      this.#host = undefined;
      if (!this.#closed)
        logger?.warn({ reason }, 'Python tool host stopped; it starts again at the next call');
    });
    return host;
  }

  #retire(host: PythonHost): void {
    if (this.#host === host) this.#host = undefined;
    if (!host.alive) return;
    this.#retired.add(host);
    if (host.pending === 0) this.#kill(host);
  }

  #kill(host: PythonHost): void {
    this.#retired.delete(host);
    void host.kill();
  }
}

/** Every instance the crew's agents and tasks build of its Python tools, each set of arguments once. */
function instancesOf(crew: CrewDefinition): Instance[] {
  const tools = crew.pythonTools?.tools ?? {};
  const instances = new Map<string, Instance>();
  const add = (name: string, presets: Readonly<Record<string, unknown>>): void => {
    const reference = tools[name];
    if (reference === undefined) return;
    const key = instanceKey(name, presets);
    if (instances.has(key)) return;
    const { [positionalArgumentsKey]: positional, ...kwargs } = presets;
    instances.set(key, {
      key,
      name,
      reference,
      presets,
      request: {
        op: 'build',
        key,
        module: reference.module,
        attribute: reference.attribute,
        kind: reference.kind,
        args: Array.isArray(positional) ? positional : [],
        kwargs,
        builtin: reference.builtin,
      },
    });
  };
  const owners = [...crew.agents.values(), ...crew.tasks];
  for (const owner of owners) {
    for (const name of owner.tools ?? []) add(name, owner.toolArguments?.[name] ?? {});
  }
  return [...instances.values()];
}

/** Whether crewd's own built-in tool takes the place of a crewai_tools one the project's Python lacks. */
function standsIn(instance: Instance): boolean {
  return instance.reference.builtin && isBuiltinToolName(instance.name);
}

function instanceKey(name: string, presets: Readonly<Record<string, unknown>>): string {
  return `${name}\u0000${canonicalJson(presets)}`;
}

function refusal(instance: Instance, reason: string): CrewdError {
  const origin = instance.reference.origin;
  const match = origin === undefined ? null : /^(.*):(\d+)$/.exec(origin);
  const what = `Python tool ${instance.name}`;
  if (match === null)
    return new CrewdError('CREW_INVALID', `${what} (${instance.reference.module}): ${reason}`);
  return new CrewLoadError(match[1]!, `${what}: ${reason}`, { line: Number(match[2]) });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
