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
  /** `provider/model`; absent means the crew's `llm`, then the `MODEL` default. */
  readonly llm?: string;
  /** Names of tools from the tool registry. */
  readonly tools: readonly string[];
  /** Literal constructor arguments of tools crew.py instantiates (`SerperDevTool(n_results=5)`), by tool name. */
  readonly toolArguments?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Upper bound on model calls in one task attempt; crewAI's default of 20 applies when absent. */
  readonly maxIter: number;
  readonly maxRpm?: number;
  readonly allowDelegation: boolean;
  readonly verbose: boolean;
}

export interface TaskDefinition {
  /** The key in tasks.yaml; this is the `task_id` clients see and send back on /resume. */
  readonly name: string;
  readonly description: string;
  readonly expectedOutput: string;
  /** Name of the agent that performs the task. */
  readonly agent: string;
  /**
   * Names of earlier tasks whose outputs form this task's context.
   * `undefined` means every earlier task (crewAI's rule); `[]` means none.
   */
  readonly context?: readonly string[];
  readonly humanInput: boolean;
  readonly outputJson?: JsonSchema;
  /** Tool names that replace the agent's tools for this task, when given. */
  readonly tools?: readonly string[];
  /** Literal constructor arguments of tools crew.py instantiates for this task, by tool name. */
  readonly toolArguments?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface CrewDefinition {
  readonly name: string;
  readonly process: ProcessKind;
  readonly llm?: string;
  readonly managerLlm?: string;
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  /** In file order; the order tasks run in. */
  readonly tasks: readonly TaskDefinition[];
  /**
   * Custom Python tools crew.py uses (`@tool` functions, `BaseTool` subclasses) by tool name, with the
   * `file:line` they are defined at, so a missing tool can be named with where it came from.
   */
  readonly toolOrigins?: Readonly<Record<string, string>>;
  /** Distinct `{placeholder}` names in order of first appearance: what `GET /inputs` returns. */
  readonly requiredInputs: readonly string[];
}

/** Input values from a kickoff, keyed by placeholder name. */
export type CrewInputs = Readonly<Record<string, unknown>>;
