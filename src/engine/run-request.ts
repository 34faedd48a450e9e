import type { CrewDefinition, CrewInputs } from '../domain/crew.ts';
import type { EngineEvent } from '../domain/events.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { CallEstimate } from '../domain/budget.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import type { PriceTable } from '../llm/price-table.ts';
import type { OutputFiles } from './output-files.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { StepJournal } from './step-journal.ts';
import type { Timers } from './timers.ts';
import type { ToolCache } from './tool-cache.ts';
import type { ToolRegistry } from './tool.ts';

/** Where a run starts from: nothing for a fresh execution, or what a stored execution already has. */
export interface Checkpoint {
  /** Accepted outputs, in task order. Tasks listed here never run again. */
  readonly outputs: readonly TaskOutput[];
  /** Every feedback given so far, oldest first. */
  readonly feedback: readonly HumanFeedback[];
  /**
   * The completed steps of the task attempt that was in flight when the last run stopped (a crash, a restart, a
   * handover): that attempt goes on from there, with no completed model or tool call made again.
   */
  readonly journal?: StepJournal;
}

export interface RunCrewRequest {
  /** The execution (kickoff id) this run belongs to; tools see it in their context. */
  readonly executionId: string;
  readonly crew: CrewDefinition;
  readonly inputs: CrewInputs;
  readonly checkpoint: Checkpoint;
  readonly models: ModelResolver;
  readonly tools: ToolRegistry;
  /** Default `provider/model` for agents and crews without `llm` (the MODEL variable). */
  readonly defaultModel: string | undefined;
  readonly signal: AbortSignal;
  /** Awaited before the engine goes on, so a listener can persist an event before anything follows it. */
  readonly onEvent: (event: EngineEvent) => void | Promise<void>;
  /**
   * Spaces each agent's model calls by its `max_rpm`. Give every run of one execution the same one, so the spacing
   * holds across a pause for human input; a fresh one per run otherwise.
   */
  readonly limiter?: RateLimiter;
  /** crewAI's tool cache for this execution; give every run of one execution the same one, as for the limiter. */
  readonly toolCache?: ToolCache;
  /** Where tasks' `output_file`s are saved; without it they are not written. */
  readonly outputFiles?: OutputFiles;
  /** Today's date for agents with `inject_date`; the system clock when absent. */
  readonly clock?: () => Date;
  /** Times agents' `max_execution_time`; real timers when absent. */
  readonly timers?: Timers;
  /** Prices model calls into their usage (`costUsd`); without it usage carries no cost. */
  readonly prices?: PriceTable;
  /**
   * Awaited before every model call that is actually made (a replayed one is not): it may stop the run by
   * throwing, before the call is made (a budget about to be passed). Whatever it throws reaches the caller of
   * `runCrew` unchanged, like what `onEvent` throws.
   */
  readonly beforeModelCall?: (call: PlannedModelCall) => void | Promise<void>;
}

/** A model call about to be made. */
export interface PlannedModelCall {
  readonly taskId: string;
  readonly attempt: number;
  /** The role of the agent that asks. */
  readonly agent: string;
  /** `provider/model`. */
  readonly model: string;
  /** What the task attempt's calls spent so far (a replayed call's usage included). */
  readonly attemptUsage: TokenUsage;
  /** The call's prompt in tokens and dollars: worked out only when asked, as it reads the whole conversation. */
  estimate(): CallEstimate;
}

export type RunOutcome =
  | {
      readonly kind: 'completed';
      /** Every task's accepted output, in order; the last one is the crew's result. */
      readonly outputs: readonly TaskOutput[];
      /** Tokens spent by this call alone. */
      readonly usage: TokenUsage;
    }
  | {
      readonly kind: 'paused';
      /** The output of the human-input task now waiting for feedback. */
      readonly output: TaskOutput;
      /** Tokens spent by this call alone. */
      readonly usage: TokenUsage;
    };
