import path from 'node:path';
import type { JsonSchema, PythonToolReference, PythonTools } from '../../domain/crew.ts';
import { positionalArgumentsKey } from '../../domain/crew.ts';
import { CrewLoadError } from '../../domain/errors.ts';
import { unhonouredAgentKeys, unhonouredCrewKeys, unhonouredTaskKeys } from '../unhonoured-keys.ts';
import { chooseCrewClass } from './choose-crew-class.ts';
import { readLlm } from './crew-py-llm.ts';
import { evaluatePython, resolveName } from './evaluate-python.ts';
import type { PythonScope } from './evaluate-python.ts';
import { decoratorName, definitionOf, findSourceRoot, PackageModules } from './python-module.ts';
import type { Definition, PythonModule } from './python-module.ts';
import { firstSyntaxError, lineOf, namedChildren } from './python-parser.ts';
import type { PythonNode } from './python-parser.ts';
import { excerpt } from './python-value.ts';
import type { PythonSymbol, PythonValue } from './python-value.ts';
import { pydanticSchema, SchemaProblem } from './pydantic-schema.ts';
import { CrewPyMcp, toolNamesIn } from './crew-py-mcp-reader.ts';
import type { McpServerDeclaration } from './crew-py-mcp.ts';

/** An agent or task as a `@agent`/`@task` method builds it, in the snake_case keys the YAML would use. */
export interface CrewPyEntry {
  /** The name crewd uses: the `self.agents_config[...]` key, else the method's name. */
  readonly name: string;
  readonly method: string;
  /** The config key the method reads, when it reads one. */
  readonly configKey: string | undefined;
  /** Keys the method sets; crewAI lets them win over the YAML's. */
  readonly entry: Readonly<Record<string, unknown>>;
  /** The line of the `Agent(...)`/`Task(...)` call (or of the method), and of each key set there, for messages. */
  readonly line: number;
  readonly lines: Readonly<Record<string, number>>;
}

/** What crew.py says about a crew, as raw config beside the YAML's. */
export interface CrewPyReading {
  readonly file: string;
  /** In the order the methods are written, which is the order crewAI assembles them in. */
  readonly agents: readonly CrewPyEntry[];
  readonly tasks: readonly CrewPyEntry[];
  /** `Crew(...)` keyword arguments, snake_case. */
  readonly crew: Readonly<Record<string, unknown>>;
  /** The line of each of `crew`'s keys, for messages. */
  readonly crewLines: Readonly<Record<string, number>>;
  /** Custom Python tools by name, with the `file:line` they are defined at. */
  readonly toolOrigins: Readonly<Record<string, string>>;
  /** The Python tools crew.py takes from the project and from `crewai_tools`, as the project's Python imports them. */
  readonly pythonTools: PythonTools;
  /** One message per part of crew.py crewd cannot read and so does not honour, naming file and line. */
  readonly dropped: readonly string[];
  /** What a person should know about how crew.py was read (which of several crews), as warnings. */
  readonly notes: readonly string[];
  /** The JSON Schema of a Pydantic class crew.py can see, for `output_json: ClassName` in tasks.yaml. */
  modelSchema(className: string): Promise<JsonSchema | undefined>;
  /** What a `@llm` method of the crew class returns, for `llm: method_name` in agents.yaml. */
  readonly llmMethods: ReadonlyMap<string, unknown>;
  /** MCP servers crew.py writes (`mcps=[...]`, `MCPServerAdapter(...)`, `mcp_server_params`), by the name given. */
  readonly mcpServers: Readonly<Record<string, McpServerDeclaration>>;
  /**
   * Frees the syntax trees read for this reading (WebAssembly memory, which the garbage collector does not free);
   * `modelSchema` must not be called after.
   */
  close(): void;
}

export interface ReadCrewPyOptions {
  /** The crew directory, to name files in messages. */
  readonly crewRoot: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The crew class to read when the file holds several (`--crew <ClassName>`). */
  readonly crewClass?: string;
}

type Section = 'agent' | 'task';

/** Keys that take a Python callable in crewAI; crewd runs no Python, so they cannot be honoured. */
/** Why an agent's own A2A server (`a2a=A2AServerConfig(...)`) is not honoured. */
const agentA2aServer =
  'the agent is not served as an A2A agent of its own: crewd serves the whole crew as one, at {base_url}/a2a';

const callableKeys = new Set([
  'guardrail',
  'guardrails',
  'callback',
  'callbacks',
  'step_callback',
  'task_callback',
  'converter_cls',
  'cache_handler',
  'before_kickoff_callbacks',
  'after_kickoff_callbacks',
]);

/** crewAI keys crewd knows it does not honour, by section: reported as such whatever their value's form. */
const unhonouredKeys: Record<Section | 'crew', Readonly<Record<string, string>>> = {
  agent: unhonouredAgentKeys,
  task: unhonouredTaskKeys,
  crew: unhonouredCrewKeys,
};

/**
 * Reads a crewAI crew from crew.py without running it: a `@CrewBase` class (its `@agent`, `@task` and `@crew`
 * methods), or a script that builds `Agent(...)`, `Task(...)` and `Crew(...)` at module level. Keyword arguments
 * become raw config, Pydantic output classes become JSON Schema, tool instances become tool names. Returns undefined
 * when the file holds neither; throws a CrewLoadError when it cannot be parsed or holds several crews and none is
 * chosen.
 */
export async function readCrewPy(
  absolutePath: string,
  options: ReadCrewPyOptions,
): Promise<CrewPyReading | undefined> {
  const packageDir = path.dirname(absolutePath);
  // Absolute imports name the package from `src/` (or the folder above the package).
  const sourceRoot = await findSourceRoot(packageDir);
  const modules = new PackageModules(sourceRoot, options.crewRoot);
  try {
    const module = await modules.read(absolutePath);
    if (module === undefined) {
      modules.close();
      return undefined;
    }
    const broken = firstSyntaxError(module.root);
    if (broken !== undefined) {
      // Read around, the error would silently lose whatever the unparsed part sets (an output_file, a task).
      throw new CrewLoadError(
        module.file,
        `is not valid Python (\`${broken.text}\`); crewd cannot read the crew from it`,
        { line: broken.line },
      );
    }
    const chosen = await chooseCrewClass(module, modules, options.crewClass);
    const methods = chosen === undefined ? scriptParts(module) : methodsOf(chosen.definition);
    if (methods.length === 0) {
      modules.close();
      return undefined;
    }
    const attributes =
      chosen === undefined ? new Map<string, PythonNode>() : classAttributes(chosen.definition);
    const reader = new CrewClassReader(module, modules, methods, attributes, options.env, sourceRoot);
    return await reader.read(chosen?.note === undefined ? [] : [chosen.note]);
  } catch (error) {
    modules.close();
    throw error;
  }
}

/**
 * A part of the crew: a decorated method of the crew class, or in a script a module-level `name = Agent(...)`
 * (`Task`, `Crew`), whose `node` is then the call itself.
 */
interface Method {
  readonly name: string;
  readonly kind: string | undefined;
  readonly node: PythonNode;
  readonly script?: true;
}

/** The module-level `name = Agent(...)`, `Task(...)` and `Crew(...)` of a script, in file order. */
function scriptParts(module: PythonModule): Method[] {
  const kinds: Record<string, string> = { Agent: 'agent', Task: 'task', Crew: 'crew' };
  const parts: Method[] = [];
  for (const statement of namedChildren(module.root)) {
    const assignment = statement.type === 'expression_statement' ? statement.firstNamedChild : null;
    const left = assignment?.type === 'assignment' ? assignment.childForFieldName('left') : null;
    const right = assignment?.childForFieldName('right');
    if (left?.type !== 'identifier' || right?.type !== 'call') continue;
    const callee = right.childForFieldName('function')?.text.split('.').pop();
    const kind = callee === undefined ? undefined : kinds[callee];
    if (kind !== undefined) parts.push({ name: left.text, kind, node: right, script: true });
  }
  return parts.some((part) => part.kind === 'agent' || part.kind === 'crew') ? parts : [];
}

function methodsOf(crewClass: Definition): Method[] {
  const body = crewClass.node.childForFieldName('body');
  const methods: Method[] = [];
  for (const statement of body === null ? [] : namedChildren(body)) {
    const definition = definitionOf(statement);
    if (definition?.node.type !== 'function_definition') continue;
    const name = definition.node.childForFieldName('name')?.text;
    if (name === undefined) continue;
    const kinds = definition.decorators.map(decoratorName);
    const kind = kinds.find((candidate) => candidate !== undefined && knownDecorators.has(candidate));
    methods.push({ name, kind, node: definition.node });
  }
  return methods;
}

const knownDecorators = new Set([
  'agent',
  'task',
  'crew',
  'llm',
  'tool',
  'before_kickoff',
  'after_kickoff',
  'cache_handler',
  'callback',
  'output_json',
  'output_pydantic',
]);

type Names = { agentNames: Map<string, string>; taskNames: Map<string, string> };

class CrewClassReader {
  readonly #dropped: string[] = [];
  readonly #toolOrigins: Record<string, string> = {};
  readonly #pythonTools: Record<string, PythonToolReference> = {};
  #mcp: CrewPyMcp = new CrewPyMcp(() => undefined, undefined);
  /** A script's variables by the start of the call assigned to them: what `agent=researcher` refers to. */
  readonly #variables = new Map<number, string>();
  /** Agents the `@crew` method builds in place (`manager_agent=Agent(...)`). */
  readonly #inlineAgents: CrewPyEntry[] = [];

  constructor(
    private readonly module: PythonModule,
    private readonly modules: PackageModules,
    private readonly methods: readonly Method[],
    private readonly selfAttributes: ReadonlyMap<string, PythonNode>,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly sourceRoot: string,
  ) {
    for (const method of methods) if (method.script) this.#variables.set(method.node.startIndex, method.name);
  }

  async read(notes: readonly string[]): Promise<CrewPyReading> {
    const agentNames = new Map<string, string>();
    const taskNames = new Map<string, string>();
    const built: Record<'agent' | 'task', { method: Method; value: PythonValue | undefined }[]> = {
      agent: [],
      task: [],
    };
    const llmMethods = new Map<string, unknown>();
    const mcpParams = this.selfAttributes.get('mcp_server_params');
    this.#mcp = new CrewPyMcp(
      (node, where, message) => this.#drop(node, where, message),
      mcpParams === undefined
        ? undefined
        : await evaluatePython(mcpParams, { ...this.#scope(), locals: new Map() }),
    );

    for (const method of this.methods) {
      if (method.kind === 'agent' || method.kind === 'task') {
        const value = await this.#returned(method);
        built[method.kind].push({ method, value });
        const configKey = value === undefined ? undefined : configKeyOf(value, method.kind);
        (method.kind === 'agent' ? agentNames : taskNames).set(method.name, configKey ?? method.name);
      } else if (method.kind === 'llm') {
        const value = await this.#returned(method);
        const llm = value === undefined ? undefined : readLlm(value, `${method.name}()`, this.#problem);
        if (llm !== undefined) llmMethods.set(method.name, llm);
      } else if (method.kind === 'before_kickoff' || method.kind === 'after_kickoff') {
        this.#drop(
          method.node,
          method.name,
          `@${method.kind} hook: crewd runs no Python, so it does not run`,
        );
      }
    }

    const names = { agentNames, taskNames };
    const agents: CrewPyEntry[] = [];
    for (const { method, value } of built.agent) {
      agents.push(await this.#entry('agent', method, value, names));
    }
    const tasks: CrewPyEntry[] = [];
    for (const { method, value } of built.task) {
      tasks.push(await this.#entry('task', method, value, names));
    }
    const crewMethod = this.methods.find((method) => method.kind === 'crew');
    const crewLines: Record<string, number> = {};
    const crew = crewMethod === undefined ? {} : await this.#crewArguments(crewMethod, names, crewLines);
    agents.push(...this.#inlineAgents);

    return {
      file: this.module.file,
      agents,
      tasks,
      crew,
      crewLines,
      notes,
      toolOrigins: this.#toolOrigins,
      pythonTools: { sourceRoot: this.sourceRoot, tools: this.#pythonTools },
      dropped: this.#dropped,
      modelSchema: (className) => this.#modelSchemaByName(className),
      llmMethods,
      mcpServers: this.#mcp.servers,
      close: () => this.modules.close(),
    };
  }

  /** The value a method returns, read with the method's own assignments in scope (a script's call as it is). */
  async #returned(method: Method): Promise<PythonValue | undefined> {
    if (method.script) return evaluatePython(method.node, this.#scope());
    const body = method.node.childForFieldName('body');
    const locals = new Map<string, PythonNode>();
    for (const statement of body === null ? [] : namedChildren(body)) {
      if (statement.type === 'expression_statement') {
        const assignment = statement.firstNamedChild;
        const left = assignment?.childForFieldName('left');
        const right = assignment?.childForFieldName('right');
        if (assignment?.type === 'assignment' && left?.type === 'identifier' && right != null) {
          locals.set(left.text, right);
        }
      } else if (statement.type === 'return_statement') {
        const expression = statement.firstNamedChild;
        if (expression === null) return undefined;
        return evaluatePython(expression, { ...this.#scope(), locals });
      }
    }
    this.#drop(method.node, method.name, 'has no `return` crewd can read');
    return undefined;
  }

  #scope(): PythonScope {
    return {
      module: this.module,
      modules: this.modules,
      env: this.env,
      selfAttributes: this.selfAttributes,
    };
  }

  async #entry(
    section: Section,
    method: Method,
    value: PythonValue | undefined,
    names: Names,
  ): Promise<CrewPyEntry> {
    const name = (section === 'agent' ? names.agentNames : names.taskNames).get(method.name) ?? method.name;
    const expected = section === 'agent' ? 'Agent' : 'Task';
    const none = {
      name,
      method: method.name,
      configKey: undefined,
      entry: {},
      line: lineOf(method.node),
      lines: {},
    };
    if (value === undefined) return none;
    if (value.kind !== 'call' || !isNamed(value.callee, expected)) {
      this.#drop(
        value.node,
        method.name,
        `does not return ${expected}(...) crewd can read: \`${excerpt(value.node)}\``,
      );
      return none;
    }
    if (value.args.length > 0) this.#drop(value.node, method.name, 'positional arguments are not read');

    const entry: Record<string, unknown> = {};
    const lines: Record<string, number> = {};
    const toolArguments: Record<string, Record<string, unknown>> = {};
    const mcps: string[] = [];
    for (const [key, argument] of value.kwargs) {
      const where = `${name}.${key}`;
      if (key === 'config') {
        this.#config(argument, where, entry, lines);
        continue;
      }
      lines[key] = lineOf(argument.node);
      switch (key) {
        case 'tools': {
          const tools = this.#tools(argument, where, toolArguments, section === 'agent' ? mcps : undefined);
          if (tools !== undefined) entry.tools = tools;
          break;
        }
        case 'mcps': {
          if (section === 'agent') mcps.push(...this.#mcp.mcps(argument, where));
          else this.#unreadable(argument, where);
          break;
        }
        case 'llm':
        case 'function_calling_llm': {
          const llm = await this.#llm(argument, where);
          if (llm !== undefined) entry[key] = llm;
          break;
        }
        case 'agent': {
          const agent = this.#reference(argument, names.agentNames);
          if (agent !== undefined) entry.agent = agent;
          else this.#unreadable(argument, where);
          break;
        }
        case 'context': {
          const context = this.#methodList(argument, names.taskNames, where);
          if (context !== undefined) entry.context = context;
          break;
        }
        case 'output_json':
        case 'output_pydantic': {
          const schema = await this.#modelSchema(argument, where);
          if (schema !== undefined) entry[key] = schema;
          break;
        }
        case 'a2a': {
          // crewAI serves such an agent as an A2A server of its own; crewd serves the crew as one A2A agent.
          if (section === 'agent') {
            this.#drop(argument.node, where, agentA2aServer);
            break;
          }
          this.#unreadable(argument, where);
          break;
        }
        case 'guardrail':
        case 'guardrails': {
          if (section !== 'task') {
            this.#drop(argument.node, where, 'takes Python code, which crewd does not run');
            break;
          }
          const guardrails = this.#guardrails(argument, where);
          if (guardrails !== undefined) entry[key] = guardrails;
          break;
        }
        default:
          this.#other(section, key, argument, where, entry);
      }
    }
    if (Object.keys(toolArguments).length > 0) {
      entry.tool_arguments = toolArguments;
      if (lines.tools !== undefined) lines.tool_arguments = lines.tools;
    }
    if (mcps.length > 0) {
      entry.mcps = [...new Set(mcps)];
      lines.mcps ??= lines.tools ?? lineOf(value.node);
    }
    const configKey = configKeyOf(value, section);
    return { name, method: method.name, configKey, entry, line: lineOf(value.node), lines };
  }

  /**
   * A keyword argument with no reading of its own: a literal is kept; a key crewd knows it does not honour is kept
   * as a request (so it is reported as such, whatever its form); Python code is reported as not run.
   */
  #other(
    section: Section | 'crew',
    key: string,
    argument: PythonValue,
    where: string,
    into: Record<string, unknown>,
  ): void {
    if (argument.kind === 'data') into[key] = argument.value;
    else if (callableKeys.has(key))
      this.#drop(argument.node, where, 'takes Python code, which crewd does not run');
    else if (Object.hasOwn(unhonouredKeys[section], key)) into[key] = excerpt(argument.node);
    else this.#unreadable(argument, where);
  }

  /**
   * `config=`: `self.agents_config[...]` names the YAML entry (see configKeyOf); a literal mapping gives the entry's
   * keys itself (the arguments after it still win); anything else is reported, not skipped.
   */
  #config(
    argument: PythonValue,
    where: string,
    entry: Record<string, unknown>,
    lines: Record<string, number>,
  ): void {
    if (argument.kind === 'config') return;
    if (argument.kind === 'data' && isMapping(argument.value)) {
      for (const [key, value] of Object.entries(argument.value)) {
        if (Object.hasOwn(entry, key)) continue;
        entry[key] = value;
        lines[key] = lineOf(argument.node);
      }
      return;
    }
    this.#unreadable(argument, where);
  }

  /** A model setting; `self.method()` reads what that method (an `@llm` one, say) returns. */
  async #llm(argument: PythonValue, where: string): Promise<unknown> {
    if (argument.kind === 'method-call') {
      const method = this.methods.find((candidate) => candidate.name === argument.method);
      const returned = method === undefined ? undefined : await this.#returned(method);
      if (returned !== undefined) return readLlm(returned, where, this.#problem);
    }
    return readLlm(argument, where, this.#problem);
  }

  /** The agent or task a value refers to: `self.method()` in a crew class, a variable in a script. */
  #reference(value: PythonValue, names: Map<string, string>): string | undefined {
    if (value.kind === 'method-call') return names.get(value.method) ?? value.method;
    if (value.kind === 'call' && value.module === this.module) {
      const variable = this.#variables.get(value.node.startIndex);
      if (variable !== undefined) return names.get(variable) ?? variable;
    }
    return undefined;
  }

  async #crewArguments(
    method: Method,
    names: Names,
    lines: Record<string, number>,
  ): Promise<Record<string, unknown>> {
    const value = await this.#returned(method);
    if (value === undefined) return {};
    if (value.kind !== 'call' || !isNamed(value.callee, 'Crew')) {
      this.#drop(
        value.node,
        method.name,
        `does not return Crew(...) crewd can read: \`${excerpt(value.node)}\``,
      );
      return {};
    }
    const crew: Record<string, unknown> = {};
    for (const [key, argument] of value.kwargs) {
      const where = `crew.${key}`;
      lines[key] = lineOf(argument.node);
      if ((key === 'agents' || key === 'tasks') && argument.kind === 'unreadable') {
        // `self.agents` / `self.tasks`: the decorated methods, which is what crewd reads anyway.
        if (/^self\.(agents|tasks)$/.test(argument.node.text)) continue;
        this.#drop(
          argument.node,
          where,
          'only `self.agents`/`self.tasks` are read; the @agent/@task methods are used',
        );
        continue;
      }
      if (key === 'agents' || key === 'tasks') {
        const list = this.#methodList(argument, key === 'agents' ? names.agentNames : names.taskNames, where);
        if (list !== undefined) crew[key] = list;
        continue;
      }
      if (key === 'process') {
        if (
          argument.kind === 'symbol' &&
          argument.symbol.kind === 'external' &&
          argument.symbol.name.startsWith('Process.')
        ) {
          crew.process = argument.symbol.name.slice('Process.'.length);
        } else if (argument.kind === 'data') crew.process = argument.value;
        else this.#unreadable(argument, where);
        continue;
      }
      if (llmKeys.has(key)) {
        const llm = await this.#llm(argument, where);
        if (llm !== undefined) crew[key] = llm;
        continue;
      }
      if (key === 'manager_agent' && argument.kind !== 'data') {
        const manager = await this.#managerAgent(argument, names);
        if (manager !== undefined) crew.manager_agent = manager;
        else this.#unreadable(argument, where);
        continue;
      }
      this.#other('crew', key, argument, where, crew);
    }
    return crew;
  }

  /**
   * The agent `manager_agent=` names: an `@agent` method or a script's agent by name; an `Agent(...)` built in
   * place (or by a helper method of the class) becomes an agent of its own, named by its config key.
   */
  async #managerAgent(value: PythonValue, names: Names): Promise<string | undefined> {
    let built: PythonValue | undefined = value;
    if (value.kind === 'method-call') {
      if (names.agentNames.has(value.method)) return names.agentNames.get(value.method);
      const helper = this.methods.find((method) => method.name === value.method);
      built = helper === undefined ? undefined : await this.#returned(helper);
    } else {
      const named = this.#reference(value, names.agentNames);
      if (named !== undefined) return named;
    }
    if (built?.kind !== 'call' || !isNamed(built.callee, 'Agent')) return undefined;
    const name = configKeyOf(built, 'agent') ?? 'manager';
    const method: Method = { name, kind: 'agent', node: built.node };
    const entry = await this.#entry('agent', method, built, names);
    this.#inlineAgents.push(entry);
    return entry.name;
  }

  #tools(
    value: PythonValue,
    where: string,
    toolArguments: Record<string, Record<string, unknown>>,
    mcps: string[] | undefined,
  ): string[] | undefined {
    // `tools=self.get_mcp_tools()`: the tools of the class's mcp_server_params.
    if (value.kind === 'method-call' && value.method === 'get_mcp_tools') {
      return this.#mcp.mcpTools(
        this.#mcp.adapterServers(value, where) ?? [],
        toolNamesIn(value),
        value,
        where,
        mcps,
      );
    }
    const items =
      value.kind === 'list'
        ? value.items
        : value.kind === 'data' && Array.isArray(value.value)
          ? []
          : undefined;
    if (items === undefined) {
      this.#unreadable(value, where);
      return undefined;
    }
    const tools: string[] = [];
    for (const item of items) {
      const servers = this.#mcp.adapterServers(item, where);
      if (servers !== undefined) {
        tools.push(...(this.#mcp.mcpTools(servers, toolNamesIn(item), item, where, mcps) ?? []));
        continue;
      }
      const tool = this.#tool(item, where);
      if (tool === undefined) continue;
      tools.push(tool.name);
      if (tool.arguments !== undefined) toolArguments[tool.name] = tool.arguments;
    }
    return tools;
  }

  #tool(
    value: PythonValue,
    where: string,
  ): { name: string; arguments?: Record<string, unknown> } | undefined {
    if (value.kind === 'call') {
      const callee = value.callee;
      if (callee.kind === 'function') {
        // A factory function: what it returns is the tool.
        return this.#unreadableTool(value, where);
      }
      const name = callee.kind === 'external' ? (callee.name.split('.').pop() ?? callee.name) : callee.name;
      if (callee.kind === 'class') {
        const origin = `${callee.module.file}:${lineOf(callee.definition.node)}`;
        this.#toolOrigins[name] = origin;
        this.#pythonTools[name] = {
          module: this.#moduleName(callee.module),
          attribute: callee.name,
          kind: 'class',
          origin,
          builtin: false,
        };
      } else if (/^crewai_tools(\.|$)/.test(callee.module) && !callee.name.includes('.')) {
        // One of crewAI's own tools: run by the project's Python where it has crewai_tools.
        this.#pythonTools[name] = {
          module: callee.module,
          attribute: name,
          kind: 'class',
          origin: `${this.module.file}:${lineOf(value.node)}`,
          builtin: true,
        };
      }
      const settings: Record<string, unknown> = {};
      for (const [key, argument] of value.kwargs) {
        if (argument.kind === 'data') settings[key] = argument.value;
        else this.#unreadable(argument, `${where}.${name}.${key}`);
      }
      if (value.args.length > 0) {
        // A project's own tool class is built by the project's Python, which takes positional literals as well.
        const positional = value.args.map((argument) => (argument.kind === 'data' ? argument : undefined));
        if (callee.kind === 'class' && positional.every((argument) => argument !== undefined)) {
          settings[positionalArgumentsKey] = positional.map((argument) => argument.value);
        } else this.#drop(value.node, `${where}.${name}`, 'positional arguments are not read');
      }
      return Object.keys(settings).length === 0 ? { name } : { name, arguments: settings };
    }
    if (value.kind === 'symbol' && value.symbol.kind === 'function') {
      // A `@tool`-decorated function: crewAI's tool of that function.
      const symbol = value.symbol;
      const isTool = symbol.definition.decorators.some((decorator) => decoratorName(decorator) === 'tool');
      if (!isTool) return this.#unreadableTool(value, where);
      const origin = `${symbol.module.file}:${lineOf(symbol.definition.node)}`;
      this.#toolOrigins[symbol.name] = origin;
      this.#pythonTools[symbol.name] = {
        module: this.#moduleName(symbol.module),
        attribute: symbol.name,
        kind: 'function',
        origin,
        builtin: false,
      };
      return { name: symbol.name };
    }
    return this.#unreadableTool(value, where);
  }

  /** The dotted name the project's Python imports a module of the project by (`my_crew.tools.custom_tool`). */
  #moduleName(module: PythonModule): string {
    const parts = path.relative(this.sourceRoot, module.absolutePath).replace(/\.py$/, '').split(path.sep);
    if (parts.at(-1) === '__init__') parts.pop();
    return parts.join('.');
  }

  #unreadableTool(value: PythonValue, where: string): undefined {
    this.#drop(
      value.node,
      where,
      `the tool \`${excerpt(value.node)}\` cannot be read statically; it is left out`,
    );
    return undefined;
  }

  #methodList(value: PythonValue, names: Map<string, string>, where: string): string[] | undefined {
    if (value.kind === 'data' && Array.isArray(value.value) && value.value.length === 0) return [];
    const listed =
      value.kind === 'list' ? value.items.map((item) => this.#reference(item, names)) : [undefined];
    if (listed.includes(undefined)) {
      this.#unreadable(value, where);
      return undefined;
    }
    return listed.filter((name): name is string => name !== undefined);
  }

  async #modelSchema(value: PythonValue, where: string): Promise<JsonSchema | undefined> {
    if (value.kind === 'data' && value.value === null) return undefined;
    if (value.kind !== 'symbol' || value.symbol.kind !== 'class') {
      this.#drop(value.node, where, `\`${excerpt(value.node)}\` is not a Pydantic class crewd can find`);
      return undefined;
    }
    try {
      return await pydanticSchema(value.symbol, { modules: this.modules, env: this.env });
    } catch (error) {
      if (!(error instanceof SchemaProblem)) throw error;
      this.#dropped.push(
        `${error.file}:${error.line} (${where}): ${error.message}; the output is not checked`,
      );
      return undefined;
    }
  }

  async #modelSchemaByName(className: string): Promise<JsonSchema | undefined> {
    const resolved = await resolveName(className, this.module, this.modules);
    if (resolved === undefined || !('symbol' in resolved) || resolved.symbol.kind !== 'class')
      return undefined;
    return pydanticSchema(resolved.symbol, { modules: this.modules, env: this.env });
  }

  /**
   * A task's guardrail(s): a description stays as it is; a Python function becomes a reference to the TypeScript
   * guardrail of the same name, which the crew's tools/ must define (the function itself cannot run here).
   */
  #guardrails(value: PythonValue, where: string): unknown {
    if (value.kind === 'data') return value.value;
    if (value.kind === 'list') {
      const items = value.items.map((item) => this.#guardrails(item, where));
      return items.includes(undefined) ? undefined : items;
    }
    if (value.kind === 'symbol' && value.symbol.kind === 'function') {
      const { symbol } = value;
      return { python: symbol.name, at: `${symbol.module.file}:${lineOf(symbol.definition.node)}` };
    }
    this.#drop(
      value.node,
      where,
      `\`${excerpt(value.node)}\` is not a guardrail crewd can read: give a description, or a function ` +
        'named like a defineGuardrail in tools/',
    );
    return undefined;
  }

  readonly #problem = (node: PythonNode, where: string, message: string): void => {
    this.#drop(node, where, message);
  };

  #unreadable(value: PythonValue, where: string): void {
    this.#drop(value.node, where, `\`${excerpt(value.node)}\` cannot be read statically; it is left out`);
  }

  #drop(node: PythonNode, where: string, message: string): void {
    this.#dropped.push(`${this.module.file}:${lineOf(node)} (${where}): ${message}`);
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Crew arguments that hold a model. */
const llmKeys = new Set(['llm', 'manager_llm', 'function_calling_llm', 'planning_llm', 'chat_llm']);

function isNamed(symbol: PythonSymbol, name: string): boolean {
  return symbol.name === name || symbol.name.endsWith(`.${name}`);
}

function configKeyOf(value: PythonValue, section: Section): string | undefined {
  if (value.kind !== 'call') return undefined;
  const config = value.kwargs.get('config');
  const expected = section === 'agent' ? 'agents' : 'tasks';
  return config?.kind === 'config' && config.section === expected ? config.key : undefined;
}

/** Class-level assignments and `self.x = ...` in `__init__`, reached through `self.x`. */
function classAttributes(crewClass: Definition): Map<string, PythonNode> {
  const attributes = new Map<string, PythonNode>();
  const body = crewClass.node.childForFieldName('body');
  for (const statement of body === null ? [] : namedChildren(body)) {
    const assignment = statement.type === 'expression_statement' ? statement.firstNamedChild : null;
    if (assignment?.type === 'assignment') {
      const left = assignment.childForFieldName('left');
      const right = assignment.childForFieldName('right');
      if (left?.type === 'identifier' && right !== null) attributes.set(left.text, right);
    }
    const definition = definitionOf(statement);
    if (definition?.node.childForFieldName('name')?.text !== '__init__') continue;
    const initBody = definition.node.childForFieldName('body');
    for (const line of initBody === null ? [] : namedChildren(initBody)) {
      const inner = line.type === 'expression_statement' ? line.firstNamedChild : null;
      if (inner?.type !== 'assignment') continue;
      const left = inner.childForFieldName('left');
      const right = inner.childForFieldName('right');
      if (left?.type === 'attribute' && left.childForFieldName('object')?.text === 'self' && right !== null) {
        const name = left.childForFieldName('attribute')?.text;
        if (name !== undefined) attributes.set(name, right);
      }
    }
  }
  return attributes;
}
