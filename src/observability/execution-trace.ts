import type { EngineEvent } from '../domain/events.ts';
import type { ExecutionState } from '../domain/execution.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { TraceSpan, Tracing } from './tracing.ts';

/**
 * The spans of one leg of one execution, built from the engine's events as they come: an execution span, a span per
 * task attempt under it, and under each task its model calls and tool calls. Names and attributes follow
 * OpenTelemetry's GenAI semantic conventions (`chat {model}`, `execute_tool {tool}`, `gen_ai.*`); the rest are
 * crewd's own (`crewd.*`).
 */
export class ExecutionTrace {
  readonly #execution: TraceSpan;
  readonly #executionId: string;
  #task: TraceSpan | undefined;
  /** A flow's methods running now, by name: several run side by side when branches race or join. */
  readonly #methods = new Map<string, TraceSpan>();
  #guardrail: TraceSpan | undefined;
  /** When the running task's last model call or tool call ended: the next tool call started then. */
  #lastStepEnd = new Date();

  constructor(
    private readonly tracing: Tracing,
    execution: { readonly id: string; readonly crew: string },
  ) {
    this.#executionId = execution.id;
    this.#execution = tracing.startSpan(`execution ${execution.crew}`, {
      attributes: {
        'crewd.execution.id': execution.id,
        'crewd.crew.name': execution.crew,
        'gen_ai.conversation.id': execution.id,
      },
    });
  }

  record(event: EngineEvent): void {
    const now = new Date();
    switch (event.type) {
      case 'task-start':
        this.#task?.end(now);
        this.#task = this.tracing.startSpan(`task ${event.taskId}`, {
          parent: this.#execution,
          attributes: {
            ...this.#ids(),
            'crewd.task.id': event.taskId,
            'crewd.task.attempt': event.attempt,
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': event.agent,
          },
        });
        this.#lastStepEnd = now;
        return;
      case 'model-call-end':
        this.#modelCall(event, now);
        return;
      case 'step-end': {
        const { step } = event;
        if (step.tool === null) {
          this.#task?.addEvent('agent final answer', { 'gen_ai.agent.name': step.agent });
          return;
        }
        const span = this.tracing.startSpan(`execute_tool ${step.tool}`, {
          parent: this.#parent(),
          startTime: this.#lastStepEnd,
          attributes: {
            ...this.#ids(),
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': step.tool,
            ...(step.toolCallId === undefined ? {} : { 'gen_ai.tool.call.id': step.toolCallId }),
            'gen_ai.agent.name': step.agent,
          },
        });
        span.end(now);
        this.#lastStepEnd = now;
        return;
      }
      case 'guardrail-start':
        this.#guardrail = this.tracing.startSpan(`guardrail ${event.check.guardrailType}`, {
          parent: this.#parent(),
          attributes: {
            ...this.#ids(),
            'crewd.task.id': event.check.taskId,
            'crewd.guardrail': event.check.guardrail,
            'crewd.guardrail.retry_count': event.check.retryCount,
            'gen_ai.agent.name': event.check.agent,
          },
        });
        return;
      case 'guardrail-end':
        this.#guardrail?.setAttributes({ 'crewd.guardrail.success': event.success });
        this.#guardrail?.end(now);
        this.#guardrail = undefined;
        this.#lastStepEnd = now;
        return;
      case 'task-end':
        this.#task?.setAttributes({
          ...usageAttributes(event.output.usage),
          'crewd.task.awaiting_human_input': event.awaitingHumanInput,
        });
        this.#task?.end(now);
        this.#task = undefined;
        return;
    }
  }

  /**
   * A flow's method started, finished or failed: a span `method <name>` under the execution, from start to end. The
   * tasks of the crews and agents it runs are spans of the execution beside it.
   */
  method(event: MethodTraceEvent): void {
    if (event.type === 'method-start') {
      this.#methods.get(event.method)?.end();
      this.#methods.set(
        event.method,
        this.tracing.startSpan(`method ${event.method}`, {
          parent: this.#execution,
          attributes: { ...this.#ids(), 'crewd.flow.method': event.method },
        }),
      );
      return;
    }
    const span = this.#methods.get(event.method);
    if (span === undefined) return;
    if (event.type === 'method-fail') span.fail(event.error);
    span.end();
    this.#methods.delete(event.method);
  }

  /** Ends the leg: PAUSED, a final state, or `stopped` when the process let go of it (cancel, shutdown). */
  end(state: ExecutionState | 'stopped', error?: string): void {
    if (error !== undefined) {
      this.#task?.fail(error);
      this.#execution.fail(error);
    }
    this.#task?.end();
    for (const span of this.#methods.values()) span.end();
    this.#methods.clear();
    this.#execution.setAttributes({ 'crewd.execution.state': state });
    this.#execution.end();
  }

  #modelCall(event: Extract<EngineEvent, { type: 'model-call-end' }>, now: Date): void {
    const slash = event.model.indexOf('/');
    const provider = slash === -1 ? 'openai' : event.model.slice(0, slash);
    const model = slash === -1 ? event.model : event.model.slice(slash + 1);
    const span = this.tracing.startSpan(`chat ${model}`, {
      parent: this.#parent(),
      startTime: new Date(now.getTime() - event.durationMs),
      attributes: {
        ...this.#ids(),
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': provider,
        'gen_ai.request.model': model,
        ...usageAttributes(event.usage),
        'gen_ai.response.finish_reasons': [event.answer.toolCalls.length > 0 ? 'tool_calls' : 'stop'],
        'crewd.task.id': event.taskId,
      },
    });
    span.end(now);
    this.#lastStepEnd = now;
  }

  #parent(): TraceSpan {
    return this.#task ?? this.#execution;
  }

  #ids() {
    return { 'crewd.execution.id': this.#executionId };
  }
}

/** What a flow run tells of its methods, as the trace records them. */
export type MethodTraceEvent =
  | { readonly type: 'method-start' | 'method-end'; readonly method: string }
  | { readonly type: 'method-fail'; readonly method: string; readonly error: string };

/** Tokens, and the cost at the price table's prices: known, or marked unknown when a model had no price. */
function usageAttributes(usage: TokenUsage) {
  return {
    'gen_ai.usage.input_tokens': usage.promptTokens,
    'gen_ai.usage.output_tokens': usage.completionTokens,
    ...(usage.costUsd === undefined ? {} : { 'crewd.usage.cost_usd': usage.costUsd }),
    ...(usage.unpricedRequests === undefined
      ? {}
      : { 'crewd.usage.unpriced_requests': usage.unpricedRequests }),
  };
}
