import path from 'node:path';
import type { JsonSchema } from '../../domain/crew.ts';
import { evaluatePython, resolveName } from './evaluate-python.ts';
import type { PythonScope } from './evaluate-python.ts';
import { decoratorName, definitionOf, PackageModules } from './python-module.ts';
import type { Definition, PythonModule } from './python-module.ts';
import { lineOf, namedChildren } from './python-parser.ts';
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
}

/** What crew.py says about a crew, as raw config beside the YAML's. */
export interface CrewPyReading {
  readonly file: string;
  /** In the order the methods are written, which is the order crewAI assembles them in. */
  readonly agents: readonly CrewPyEntry[];
  readonly tasks: readonly CrewPyEntry[];
  /** `Crew(...)` keyword arguments, snake_case. */
  readonly crew: Readonly<Record<string, unknown>>;
  /** Custom Python tools by name, with the `file:line` they are defined at. */
  readonly toolOrigins: Readonly<Record<string, string>>;
  /** One message per part of crew.py crewd cannot read and so does not honour, naming file and line. */
  readonly dropped: readonly string[];
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
  'knowledge_sources',
  'embedder',
]);

/**
 * Reads a crewAI `@CrewBase` class from crew.py without running it: the `@agent`, `@task` and `@crew` methods'
 * keyword arguments become raw config, Pydantic output classes become JSON Schema, tool instances become tool
 * names. Returns undefined when the file holds no CrewBase class.
 */
export async function readCrewPy(
  absolutePath: string,
  options: ReadCrewPyOptions,
): Promise<CrewPyReading | undefined> {
  const packageDir = path.dirname(absolutePath);
  // Imports name the package from the folder above it (`src/` in a crewAI project).
  const modules = new PackageModules(path.dirname(packageDir), options.crewRoot);
  try {
    const module = await modules.read(absolutePath);
    const crewClass = module === undefined ? undefined : findCrewClass(module);
    if (module === undefined || crewClass === undefined) {
      modules.close();
      return undefined;
    }
    const reader = new CrewClassReader(module, modules, crewClass, options.env);
    return await reader.read();
  } catch (error) {
    modules.close();
    throw error;
  }
}

function findCrewClass(module: PythonModule): Definition | undefined {
  const classes = [...module.classes.values()];
  return (
    classes.find((definition) =>
      definition.decorators.some((decorator) => decoratorName(decorator) === 'CrewBase'),
    ) ?? classes.find((definition) => methodsOf(definition).some((method) => method.kind === 'agent'))
  );
}

interface Method {
  readonly name: string;
  readonly kind: string | undefined;
  readonly node: PythonNode;
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

class CrewClassReader {
  readonly #dropped: string[] = [];
  readonly #toolOrigins: Record<string, string> = {};
  #mcp: CrewPyMcp = new CrewPyMcp(() => undefined, undefined);
  readonly #methods: Method[];
  readonly #selfAttributes: Map<string, PythonNode>;

  constructor(
    private readonly module: PythonModule,
    private readonly modules: PackageModules,
    crewClass: Definition,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {
    this.#methods = methodsOf(crewClass);
    this.#selfAttributes = classAttributes(crewClass);
  }

  async read(): Promise<CrewPyReading> {
    const agentNames = new Map<string, string>();
    const taskNames = new Map<string, string>();
    const built: Record<'agent' | 'task', { method: Method; value: PythonValue | undefined }[]> = {
      agent: [],
      task: [],
    };
    const llmMethods = new Map<string, unknown>();
    const mcpParams = this.#selfAttributes.get('mcp_server_params');
    this.#mcp = new CrewPyMcp(
      (node, where, message) => this.#drop(node, where, message),
      mcpParams === undefined
        ? undefined
        : await evaluatePython(mcpParams, { ...this.#scope(), locals: new Map() }),
    );

    for (const method of this.#methods) {
      if (method.kind === 'agent' || method.kind === 'task') {
        const value = await this.#returned(method);
        built[method.kind].push({ method, value });
        const configKey = value === undefined ? undefined : configKeyOf(value, method.kind);
        (method.kind === 'agent' ? agentNames : taskNames).set(method.name, configKey ?? method.name);
      } else if (method.kind === 'llm') {
        const value = await this.#returned(method);
        const llm = value === undefined ? undefined : this.#llm(value, `${method.name}()`);
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
    const crewMethod = this.#methods.find((method) => method.kind === 'crew');
    const crew = crewMethod === undefined ? {} : await this.#crewArguments(crewMethod, names);

    return {
      file: this.module.file,
      agents,
      tasks,
      crew,
      toolOrigins: this.#toolOrigins,
      dropped: this.#dropped,
      modelSchema: (className) => this.#modelSchemaByName(className),
      llmMethods,
      mcpServers: this.#mcp.servers,
      close: () => this.modules.close(),
    };
  }

  /** The value a method returns, read with the method's own assignments in scope. */
  async #returned(method: Method): Promise<PythonValue | undefined> {
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
      selfAttributes: this.#selfAttributes,
    };
  }

  async #entry(
    section: Section,
    method: Method,
    value: PythonValue | undefined,
    names: { agentNames: Map<string, string>; taskNames: Map<string, string> },
  ): Promise<CrewPyEntry> {
    const name = (section === 'agent' ? names.agentNames : names.taskNames).get(method.name) ?? method.name;
    const expected = section === 'agent' ? 'Agent' : 'Task';
    if (value === undefined) return { name, method: method.name, configKey: undefined, entry: {} };
    if (value.kind !== 'call' || !isNamed(value.callee, expected)) {
      this.#drop(
        value.node,
        method.name,
        `does not return ${expected}(...) crewd can read: \`${excerpt(value.node)}\``,
      );
      return { name, method: method.name, configKey: undefined, entry: {} };
    }
    if (value.args.length > 0) this.#drop(value.node, method.name, 'positional arguments are not read');

    const entry: Record<string, unknown> = {};
    const toolArguments: Record<string, Record<string, unknown>> = {};
    const mcps: string[] = [];
    for (const [key, argument] of value.kwargs) {
      const where = `${name}.${key}`;
      if (key === 'config') continue;
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
          const llm = this.#llm(argument, where);
          if (llm !== undefined) entry[key] = llm;
          break;
        }
        case 'agent': {
          if (argument.kind === 'method-call')
            entry.agent = names.agentNames.get(argument.method) ?? argument.method;
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
        default: {
          if (argument.kind === 'data') entry[key] = argument.value;
          else if (callableKeys.has(key)) {
            this.#drop(argument.node, where, 'takes Python code, which crewd does not run');
          } else this.#unreadable(argument, where);
        }
      }
    }
    if (Object.keys(toolArguments).length > 0) entry.tool_arguments = toolArguments;
    if (mcps.length > 0) entry.mcps = [...new Set(mcps)];
    const configKey = configKeyOf(value, section);
    return { name, method: method.name, configKey, entry };
  }

  async #crewArguments(
    method: Method,
    names: { agentNames: Map<string, string>; taskNames: Map<string, string> },
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
      if (
        key === 'manager_llm' ||
        key === 'llm' ||
        key === 'function_calling_llm' ||
        key === 'planning_llm'
      ) {
        const llm = this.#llm(argument, where);
        if (llm !== undefined) crew[key] = llm;
        continue;
      }
      if (key === 'manager_agent' && argument.kind === 'method-call') {
        crew.manager_agent = names.agentNames.get(argument.method) ?? argument.method;
        continue;
      }
      if (argument.kind === 'data') crew[key] = argument.value;
      else if (callableKeys.has(key))
        this.#drop(argument.node, where, 'takes Python code, which crewd does not run');
      else this.#unreadable(argument, where);
    }
    return crew;
  }

  /** A model: a string stays a string; `LLM(model=..., ...)` becomes crewAI's YAML object form. */
  #llm(value: PythonValue, where: string): unknown {
    if (value.kind === 'data' && (typeof value.value === 'string' || value.value === null))
      return value.value ?? undefined;
    if (value.kind === 'call' && value.callee.kind !== 'function') {
      const settings: Record<string, unknown> = {};
      for (const [key, argument] of value.kwargs) {
        if (argument.kind === 'data') settings[key === 'model_name' ? 'model' : key] = argument.value;
        else this.#unreadable(argument, `${where}.${key}`);
      }
      const [model] = value.args;
      if (model?.kind === 'data' && typeof model.value === 'string' && settings.model === undefined) {
        settings.model = model.value;
      }
      if (typeof settings.model === 'string') return settings;
      this.#drop(value.node, where, `names no model crewd can read: \`${excerpt(value.node)}\``);
      return undefined;
    }
    this.#unreadable(value, where);
    return undefined;
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
      if (callee.kind === 'class')
        this.#toolOrigins[name] = `${callee.module.file}:${lineOf(callee.definition.node)}`;
      const settings: Record<string, unknown> = {};
      for (const [key, argument] of value.kwargs) {
        if (argument.kind === 'data') settings[key] = argument.value;
        else this.#unreadable(argument, `${where}.${name}.${key}`);
      }
      if (value.args.length > 0)
        this.#drop(value.node, `${where}.${name}`, 'positional arguments are not read');
      return Object.keys(settings).length === 0 ? { name } : { name, arguments: settings };
    }
    if (value.kind === 'symbol' && value.symbol.kind === 'function') {
      // A `@tool`-decorated function: crewAI's tool of that function.
      const symbol = value.symbol;
      const isTool = symbol.definition.decorators.some((decorator) => decoratorName(decorator) === 'tool');
      if (!isTool) return this.#unreadableTool(value, where);
      this.#toolOrigins[symbol.name] = `${symbol.module.file}:${lineOf(symbol.definition.node)}`;
      return { name: symbol.name };
    }
    return this.#unreadableTool(value, where);
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
    if (value.kind !== 'list' || !value.items.every((item) => item.kind === 'method-call')) {
      this.#unreadable(value, where);
      return undefined;
    }
    return value.items.map((item) =>
      item.kind === 'method-call' ? (names.get(item.method) ?? item.method) : '',
    );
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

  #unreadable(value: PythonValue, where: string): void {
    this.#drop(value.node, where, `\`${excerpt(value.node)}\` cannot be read statically; it is left out`);
  }

  #drop(node: PythonNode, where: string, message: string): void {
    this.#dropped.push(`${this.module.file}:${lineOf(node)} (${where}): ${message}`);
  }
}

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
