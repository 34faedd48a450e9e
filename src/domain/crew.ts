import type { Budget } from './budget.ts';
import type { ReviewDeadline } from './review-deadline.ts';

/** A crew after loading: agents and tasks with every default applied, ready for the engine. */

/** A JSON Schema object, as written in `output_json`. */
export type JsonSchema = Record<string, unknown>;

export type ProcessKind = 'sequential' | 'hierarchical';

/**
 * A model as crewAI names it (`gpt-4o`, `openai/gpt-4o-mini`, `ollama/llama3.1`, …) with the call settings an
 * `llm:` object in YAML or an `LLM(...)` in crew.py gives.
 */
export interface ModelSpec {
  readonly model: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly topP?: number;
  readonly baseUrl?: string;
  readonly apiKey?: string;
}

export interface AgentDefinition {
  /** The key in agents.yaml. */
  readonly name: string;
  readonly role: string;
  readonly goal: string;
  readonly backstory: string;
  /** The agent's model; absent means the crew's `llm`, then the `MODEL` default. */
  readonly llm?: ModelSpec;
  /** The model for turns that offer tools (crewAI's `function_calling_llm`); absent means the crew's, then `llm`. */
  readonly functionCallingLlm?: ModelSpec;
  /** Names of tools from the tool registry. */
  readonly tools: readonly string[];
  /** MCP servers whose tools the agent also gets: crew.yaml server names or URLs, `#tool` picking one tool. */
  readonly mcps?: readonly string[];
  /** Literal constructor arguments of tools crew.py instantiates (`SerperDevTool(n_results=5)`), by tool name. */
  readonly toolArguments?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Upper bound on model calls in one task attempt; crewAI's default of 20 applies when absent. */
  readonly maxIter: number;
  readonly maxRpm?: number;
  readonly allowDelegation: boolean;
  readonly verbose: boolean;
  /** crewAI's tool cache: a repeated call with the same arguments answers from the first result (default true). */
  readonly cache?: boolean;
  /** crewAI's `inject_date`: today's date is added to each task description, in `dateFormat` (strftime). */
  readonly injectDate?: boolean;
  readonly dateFormat?: string;
  /** Seconds one task attempt may take before the task fails. */
  readonly maxExecutionTime?: number;
  /** Further attempts after a failed one before the task fails; crewAI's default of 2 applies when absent. */
  readonly maxRetryLimit?: number;
}

export interface TaskDefinition {
  /** The key in tasks.yaml; this is the `task_id` clients see and send back on /resume. */
  readonly name: string;
  readonly description: string;
  readonly expectedOutput: string;
  /**
   * Name of the agent that performs the task. Absent only in a hierarchical crew: the manager then leads the task
   * with every agent of the crew as a coworker.
   */
  readonly agent?: string;
  /**
   * Names of earlier tasks whose outputs form this task's context.
   * `undefined` means every earlier task (crewAI's rule); `[]` means none.
   */
  readonly context?: readonly string[];
  readonly humanInput: boolean;
  /** When set, a review left unanswered this long is answered with its outcome. */
  readonly reviewDeadline?: ReviewDeadline;
  readonly outputJson?: JsonSchema;
  /** Tool names that replace the agent's tools for this task, when given. */
  readonly tools?: readonly string[];
  /** Literal constructor arguments of tools crew.py instantiates for this task, by tool name. */
  readonly toolArguments?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Path in the execution's workspace the accepted answer is saved at; may hold `{placeholders}`. */
  readonly outputFile?: string;
  /** Whether missing directories of `outputFile` are made (crewAI's default: true). */
  readonly createDirectory?: boolean;
  /** crewAI's `markdown`: the prompt asks for the answer in Markdown. */
  readonly markdown?: boolean;
  /** Checks of the final answer, in the order they run (crewAI's `guardrails`, or its single `guardrail`). */
  readonly guardrails?: readonly GuardrailSpec[];
  /** How many times the agent tries again after a failed check, per guardrail; `defaultGuardrailMaxRetries` when absent. */
  readonly guardrailMaxRetries?: number;
}

/** crewAI's default for `guardrail_max_retries`. */
export const defaultGuardrailMaxRetries = 3;

/**
 * A check of a task's answer: a description a model judges the answer against (crewAI's string guardrail), or a
 * function from the crew's `tools/` modules, by name.
 */
export type GuardrailSpec =
  | { readonly kind: 'llm'; readonly description: string }
  | {
      readonly kind: 'function';
      readonly name: string;
      /** Where the Python function it stands for is defined, when crew.py or a `python` reference named it. */
      readonly pythonOrigin?: string;
    };

export interface CrewDefinition {
  readonly name: string;
  readonly process: ProcessKind;
  /** The model of agents without their own `llm`. */
  readonly llm?: ModelSpec;
  readonly managerLlm?: ModelSpec;
  /** The agent (its key in agents.yaml) that leads a hierarchical crew instead of one built from `managerLlm`. */
  readonly managerAgent?: string;
  /** The tool-calling model of agents without their own `function_calling_llm`. */
  readonly functionCallingLlm?: ModelSpec;
  /** MCP servers declared in crew.yaml, by name. */
  readonly mcpServers?: ReadonlyMap<string, McpServerConfig>;
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  /** In file order; the order tasks run in. */
  readonly tasks: readonly TaskDefinition[];
  /**
   * Custom Python tools crew.py uses (`@tool` functions, `BaseTool` subclasses) by tool name, with the
   * `file:line` they are defined at, so a missing tool can be named with where it came from.
   */
  readonly toolOrigins?: Readonly<Record<string, string>>;
  /**
   * The Python tools crew.py takes from the project (`@tool` functions, `BaseTool` subclasses) and from
   * `crewai_tools`, by tool name: what the project's Python imports to build and run them.
   */
  readonly pythonTools?: PythonTools;
  /** Distinct `{placeholder}` names in order of first appearance: what `GET /inputs` returns. */
  readonly requiredInputs: readonly string[];
  /**
   * What each input takes, where it is known (a flow's state schema): its JSON type and whether a kickoff must give
   * it. A crew's placeholders are all required text, and leave this out.
   */
  readonly inputFields?: Readonly<Record<string, InputField>>;
  /** crew.yaml's `budget`: each execution's unless its kickoff gives its own. */
  readonly budget?: Budget;
}

/** One kickoff input of a typed state: its JSON Schema type (undefined: any JSON value) and whether it is required. */
export interface InputField {
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | undefined;
  readonly required: boolean;
  readonly description?: string;
  /** The value the state takes when a kickoff leaves the field out, where there is one. */
  readonly default?: unknown;
}

/** The Python tools of a crewAI project and where its Python finds their modules. */
export interface PythonTools {
  /** The folder holding the project's packages (a crewAI project's `src/`), absolute; put on `sys.path`. */
  readonly sourceRoot: string;
  readonly tools: Readonly<Record<string, PythonToolReference>>;
}

/** One Python tool as crew.py names it. */
export interface PythonToolReference {
  /** The dotted module the tool is imported from (`my_crew.tools.custom_tool`, `crewai_tools`). */
  readonly module: string;
  /** The class, or the `@tool` function's name, in that module. */
  readonly attribute: string;
  /** `class`: instantiated with crew.py's arguments; `function`: a `@tool` function, which is the tool itself. */
  readonly kind: 'class' | 'function';
  /** `file:line` of the definition of a project's own tool; of the line of crew.py that builds a `crewai_tools` one. */
  readonly origin?: string;
  /** One of crewAI's own tools (`crewai_tools`): used only where the project's Python has it. */
  readonly builtin: boolean;
}

/**
 * Where crew.py's positional constructor arguments of a Python tool are kept among its literal arguments
 * (`toolArguments`); not a Python identifier, so no keyword argument can take the name.
 */
export const positionalArgumentsKey = '*args';

/** Input values from a kickoff, keyed by placeholder name. */
export type CrewInputs = Readonly<Record<string, unknown>>;

/**
 * An MCP server a crew declares in crew.yaml's `mcp_servers` (stdio: a command crewd starts; http: a Streamable HTTP
 * URL, with SSE as the fallback), or that an agent's `mcps:` names by URL. `${VAR}` in `env` and `headers` values
 * is taken from crewd's environment when the server is opened.
 */
export type McpServerConfig =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** The server's whole environment: crewd's own variables never reach it unless named here. */
      readonly env: Readonly<Record<string, string>>;
      readonly cwd?: string;
      /** Longest one tool call may take; 60 s when absent. */
      readonly timeoutMs?: number;
    }
  | {
      readonly kind: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly timeoutMs?: number;
    };
