import { McpServerNames, readMcpServer } from './crew-py-mcp.ts';
import type { McpServerDeclaration } from './crew-py-mcp.ts';
import { namedChildren } from './python-parser.ts';
import type { PythonNode } from './python-parser.ts';
import { excerpt } from './python-value.ts';
import type { PythonValue } from './python-value.ts';

/**
 * Reads crewAI's MCP forms in a crew class: an Agent's `mcps=[...]`, `MCPServerAdapter(params, *tools)` among its
 * tools, and `self.get_mcp_tools(*tools)` over the class's `mcp_server_params`. Servers get names (see
 * `McpServerNames`); what cannot be read is reported through `drop` and left out.
 */
export class CrewPyMcp {
  readonly #names = new McpServerNames();

  constructor(
    private readonly drop: (node: PythonNode, where: string, message: string) => void,
    /** The crew class's `mcp_server_params`, already read. */
    private readonly classParams: PythonValue | undefined,
  ) {}

  /** Every server read so far, by name. */
  get servers(): Readonly<Record<string, McpServerDeclaration>> {
    return this.#names.servers;
  }

  /** `mcps=[...]` on an Agent: URLs as they are, server objects as named servers. */
  mcps(value: PythonValue, where: string): string[] {
    const items = value.kind === 'list' ? value.items : listOfData(value);
    if (items === undefined) {
      this.drop(value.node, where, `\`${excerpt(value.node)}\` cannot be read statically; it is left out`);
      return [];
    }
    const references: string[] = [];
    for (const item of items) {
      if (item.kind === 'data' && typeof item.value === 'string') {
        references.push(item.value);
        continue;
      }
      const reading = readMcpServer(item);
      if ('problem' in reading) this.drop(item.node, where, reading.problem);
      else references.push(this.#names.nameOf(reading.server));
    }
    return references;
  }

  /** The servers of `MCPServerAdapter(params, *tool_names)`, or undefined when `value` is not one. */
  adapterServers(value: PythonValue, where: string): string[] | undefined {
    if (value.kind === 'method-call' && value.method === 'get_mcp_tools')
      return this.#classServers(value, where);
    if (value.kind !== 'call' || (value.callee.name.split('.').pop() ?? '') !== 'MCPServerAdapter')
      return undefined;
    const params = value.args[0] ?? value.kwargs.get('serverparams');
    if (params === undefined) {
      this.drop(value.node, where, 'MCPServerAdapter without server parameters cannot be read');
      return [];
    }
    return this.#serverList(params, where);
  }

  /** `self.get_mcp_tools()`: the servers of the class's `mcp_server_params`. */
  #classServers(value: PythonValue, where: string): string[] {
    const params = this.classParams;
    if (params === undefined) {
      this.drop(
        value.node,
        where,
        'get_mcp_tools() needs mcp_server_params on the crew class, which it lacks',
      );
      return [];
    }
    return this.#serverList(params, where);
  }

  #serverList(value: PythonValue, where: string): string[] {
    const items = value.kind === 'list' ? value.items : (listOfData(value) ?? [value]);
    const names: string[] = [];
    for (const item of items) {
      const reading = readMcpServer(item);
      if ('problem' in reading) this.drop(item.node, where, reading.problem);
      else names.push(this.#names.nameOf(reading.server));
    }
    return names;
  }

  /**
   * The tools an agent gets from `servers`: every tool of each (through its `mcps`), or the named ones as
   * `<server>.<tool>`. A task cannot take a whole server, so there the servers are dropped with a message.
   */
  mcpTools(
    servers: readonly string[],
    toolNames: readonly string[],
    value: PythonValue,
    where: string,
    mcps: string[] | undefined,
  ): string[] | undefined {
    if (servers.length === 0) return [];
    if (toolNames.length > 0) {
      if (servers.length === 1) return toolNames.map((tool) => `${servers[0] ?? ''}.${tool}`);
      this.drop(
        value.node,
        where,
        `picks tools by name from ${servers.length} MCP servers; name each as <server>.<tool> in tools: (servers: ${servers.join(', ')})`,
      );
      return [];
    }
    if (mcps === undefined) {
      this.drop(
        value.node,
        where,
        "a task cannot take a whole MCP server's tools; give the server to the agent",
      );
      return [];
    }
    mcps.push(...servers);
    return [];
  }
}

/** Tool names picked after the server: `MCPServerAdapter(params, "a", "b")`, `self.get_mcp_tools("a", "b")`. */
export function toolNamesIn(value: PythonValue): string[] {
  if (value.kind === 'call') {
    return value.args
      .slice(1)
      .flatMap((arg) => (arg.kind === 'data' && typeof arg.value === 'string' ? [arg.value] : []));
  }
  const argumentsNode = value.node.childForFieldName('arguments');
  return (argumentsNode === null ? [] : namedChildren(argumentsNode))
    .filter((node) => node.type === 'string')
    .map((node) => node.text.replace(/^[rRuU]?(['"]{1,3})([\s\S]*)\1$/, '$2'));
}

/** The items of a literal list read as plain data, each as a value of its own. */
function listOfData(value: PythonValue): PythonValue[] | undefined {
  if (value.kind !== 'data' || !Array.isArray(value.value)) return undefined;
  return (value.value as unknown[]).map((item) => ({ kind: 'data', value: item, node: value.node }));
}
