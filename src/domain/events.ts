import type { TaskOutput } from './task-output.ts';
import type { TokenUsage } from './usage.ts';

/** One agent step: a tool call with its result, or the final answer (tool is null). */
export interface AgentStep {
  readonly taskId: string;
  /** The agent's role. */
  readonly agent: string;
  /** The user prompt the agent was working on. */
  readonly prompt: string;
  /** The model's text for this step: its reasoning before a tool call, or the final answer. */
  readonly thought: string;
  readonly tool: string | null;
  readonly toolInput: unknown;
  /** The tool's result, or the final answer when tool is null. */
  readonly result: string;
  /** The model's id for the tool call; absent for a final answer. */
  readonly toolCallId?: string;
}

/** A model's answer as the step journal keeps it: enough to replay the call without making it again. */
export interface ModelAnswer {
  readonly text: string;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly input: unknown }[];
}

/** Which guardrail a check ran, as crewAI's guardrail events name it. */
export interface GuardrailCheck {
  readonly taskId: string;
  /** The task attempt (a human rejection starts the next one); guardrail retries stay within it. */
  readonly attempt: number;
  /** The agent's role. */
  readonly agent: string;
  /** `llm` for a description a model checks, `function` for a guardrail in code. */
  readonly guardrailType: 'llm' | 'function';
  /** The description, or the function's name. */
  readonly guardrail: string;
  /** How many times the agent has tried again for this guardrail before this check. */
  readonly retryCount: number;
}

/** Events the engine emits while running a crew, named noun-then-verb. */
export type EngineEvent =
  | { readonly type: 'task-start'; readonly taskId: string; readonly agent: string; readonly attempt: number }
  | { readonly type: 'step-end'; readonly step: AgentStep }
  | {
      readonly type: 'model-call-end';
      readonly taskId: string;
      readonly attempt: number;
      /** The role of the agent that asked. */
      readonly agent?: string;
      /** The conversation within the attempt: '' for the task's agent, a delegation's path for a coworker. */
      readonly scope?: string;
      readonly answer: ModelAnswer;
      readonly model: string;
      readonly usage: TokenUsage;
      readonly durationMs: number;
    }
  | { readonly type: 'guardrail-start'; readonly check: GuardrailCheck }
  | {
      readonly type: 'guardrail-end';
      readonly check: GuardrailCheck;
      readonly success: boolean;
      /** The feedback of a failed check. */
      readonly error: string | null;
    }
  | {
      readonly type: 'task-end';
      readonly output: TaskOutput;
      /** True when the task has `human_input` and now waits for feedback. */
      readonly awaitingHumanInput: boolean;
    };

export type EngineEventType = EngineEvent['type'];
