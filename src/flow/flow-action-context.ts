import type { EngineEvent } from '../domain/events.ts';
import type { Checkpoint, PlannedModelCall } from '../engine/run-request.ts';
import type { ToolRegistry } from '../engine/tool.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import type { PriceTable } from '../llm/price-table.ts';
import type { CelRoot } from './cel-expression.ts';
import type { JsonValue } from './cel-values.ts';
import type { PythonActionDefinition } from './flow-definition.ts';
import type { FlowState } from './flow-state.ts';

/** Runs `code`, `tool` and `script` actions in Python; the flow loader accepts them only when a runner has one. */
export interface PythonActionHost {
  /** `args` is the action's `with:` rendered against the flow's data (undefined without one). */
  run(
    action: PythonActionDefinition,
    args: JsonValue | undefined,
    context: ActionContext,
  ): Promise<JsonValue>;
}

/** What the outside world gives a flow run: models, tools, where inner crew events go. */
export interface FlowRunDependencies {
  readonly models: ModelResolver;
  readonly tools: ToolRegistry;
  /** The `provider/model` of agents and crews that name none (the MODEL variable). */
  readonly defaultModel: string | undefined;
  /** The run's id, as tools see it (the kickoff id). */
  readonly executionId: string;
  /** Events of the agents and crews the flow's methods run, with the run they belong to. */
  readonly onEngineEvent?: (run: CrewRun, event: EngineEvent) => void | Promise<void>;
  readonly pythonActions?: PythonActionHost;
  /** Keys of crews read at run time (`from_declaration`) that crewd ignores. */
  readonly onWarning?: (message: string) => void;
  readonly clock?: () => Date;
  readonly newId?: () => string;
  /**
   * What a crew or agent run did before it was cut short (a crash, a handover): its completed tasks and the steps
   * of the task in flight, so it goes on from there without a completed model or tool call made again. Undefined
   * when that run has nothing to go on from.
   */
  readonly checkpointOf?: (run: CrewRun) => Checkpoint | undefined;
  /** Prices the model calls of the method's agents and crews into their usage; without it usage has no cost. */
  readonly prices?: PriceTable;
  /**
   * Awaited before every model call a method's agents and crews actually make (a replayed one is not): it may stop
   * the whole run by throwing (a budget about to be passed). What it throws is no failure of the method: it
   * reaches the caller of `runFlow` unchanged, the other methods in flight stopped.
   */
  readonly beforeModelCall?: (method: string, call: PlannedModelCall) => void | Promise<void>;
}

/**
 * One crew or agent run inside a flow: the `run`-th (from 1) of the `call`-th execution of `method`. A method runs
 * one crew or agent, or one per `each` step and item; its runs are numbered in the order they start, the same on
 * every replay of the call. A method run again (a cycle, a rejected review) is a new call, and its runs begin anew.
 */
export interface CrewRun {
  readonly method: string;
  readonly call: number;
  readonly run: number;
}

/** What one action sees while it runs. */
export interface ActionContext {
  readonly method: string;
  /** Names the next crew or agent run of this method's call (see CrewRun); each crew or agent action takes one. */
  readonly nextRun: () => CrewRun;
  /** The CEL roots: `state`, `outputs` (and `item` inside `each`). */
  readonly data: Readonly<Partial<Record<CelRoot, unknown>>>;
  /** The flow file's directory: `from_declaration` paths are resolved in it. */
  readonly sourceDir: string | undefined;
  readonly signal: AbortSignal;
  readonly dependencies: FlowRunDependencies;
  /** What the method that triggered this one returned (crewAI passes it to `code` refs and scripts' `input`). */
  readonly input?: JsonValue;
  /**
   * The reviews that rejected this method's earlier outputs in this execution, oldest first: the method runs again
   * with them as context. Absent on a first run.
   */
  readonly rejections?: readonly ReviewRejection[];
  /** Replaces the flow's state: `code` refs and scripts change it, as they change crewAI's live state. */
  readonly setState?: (state: FlowState) => void;
}

/** A reviewer's rejection of a `human_feedback` method's output: what it produced and what the reviewer said. */
export interface ReviewRejection {
  readonly output: JsonValue;
  readonly feedback: string;
}
