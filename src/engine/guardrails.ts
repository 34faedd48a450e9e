import { clipText } from '../domain/clip-text.ts';
import { defaultGuardrailMaxRetries } from '../domain/crew.ts';
import type { GuardrailSpec, TaskDefinition } from '../domain/crew.ts';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import type { EngineEvent, GuardrailCheck } from '../domain/events.ts';
import type { ChatRequest, ChatResponse } from '../llm/chat-model.ts';
import type { Guardrail, GuardrailVerdict } from './guardrail.ts';
import { llmGuardrailRequest, llmGuardrailVerdict } from './llm-guardrail.ts';
import type { StructuredOutputChecker } from './structured-output.ts';
import type { ToolRegistry } from './tool.ts';

/** A task's answer: its text and, for a task with `output_json`, the parsed object. */
export interface TaskAnswer {
  readonly answer: string;
  readonly outputJson: Record<string, unknown> | null;
}

export interface GuardrailRunOptions {
  readonly task: TaskDefinition;
  /** The agent's role, for events and for what a guardrail function sees. */
  readonly agent: string;
  readonly attempt: number;
  readonly registry: Pick<ToolRegistry, 'guardrail'>;
  /** A model call with the task agent's model (crewAI checks string guardrails with the agent's llm), journaled. */
  readonly call: (request: ChatRequest) => Promise<ChatResponse>;
  readonly emit: (event: EngineEvent) => Promise<void>;
  /** True when the journal shows this check already reported (a restart replays it without its events again). */
  readonly reported: () => boolean;
  /** The agent works the task again, told why its last answer failed. */
  readonly retry: (validationError: string, previousAnswer: string) => Promise<TaskAnswer>;
  /** The task's `output_json` check, when it has one, for answers a guardrail replaces. */
  readonly checkJson: StructuredOutputChecker | undefined;
}

/**
 * Runs a task's guardrails in order over its answer, as crewAI does: a failed check sends its feedback back to the
 * agent, which answers again; after `guardrail_max_retries` retries for one guardrail the task fails with the last
 * feedback. A passing check may replace the answer; the next guardrail sees the replaced one.
 */
export async function applyGuardrails(first: TaskAnswer, options: GuardrailRunOptions): Promise<TaskAnswer> {
  const { task } = options;
  const maxRetries = task.guardrailMaxRetries ?? defaultGuardrailMaxRetries;
  let current = first;
  for (const spec of task.guardrails ?? []) {
    for (let retryCount = 0; ; retryCount += 1) {
      const check: GuardrailCheck = {
        taskId: task.name,
        attempt: options.attempt,
        agent: options.agent,
        guardrailType: spec.kind,
        guardrail: spec.kind === 'llm' ? spec.description : spec.name,
        retryCount,
      };
      const verdict = await runCheck(spec, check, current, options);
      if (verdict.success) {
        current = replaced(current, verdict.result, check, options.checkJson);
        break;
      }
      if (retryCount >= maxRetries) {
        throw new CrewdError(
          'TASK_FAILED',
          `its guardrail ${label(check)} did not pass after ${maxRetries} ${maxRetries === 1 ? 'retry' : 'retries'}. Last feedback: ${clipText(verdict.error)}`,
        );
      }
      current = await options.retry(verdict.error, current.answer);
    }
  }
  return current;
}

/** The guardrail function a task names; CONFIG_INVALID saying how to provide it when the crew has none. */
export function findGuardrail(
  registry: Pick<ToolRegistry, 'guardrail'>,
  task: Pick<TaskDefinition, 'name'>,
  spec: Extract<GuardrailSpec, { kind: 'function' }>,
): Guardrail {
  const found = registry.guardrail(spec.name);
  if (found !== undefined) return found;
  const python =
    spec.pythonOrigin === undefined
      ? ''
      : `is the Python function ${spec.pythonOrigin}, which crewd cannot run; it `;
  throw new CrewdError(
    'CONFIG_INVALID',
    `Task '${task.name}' uses guardrail '${spec.name}', which ${python}needs a TypeScript guardrail of that name: ` +
      `add tools/${spec.name}.ts exporting defineGuardrail({ name: '${spec.name}', check }) from 'crewd/tools'`,
  );
}

async function runCheck(
  spec: GuardrailSpec,
  check: GuardrailCheck,
  current: TaskAnswer,
  options: GuardrailRunOptions,
): Promise<GuardrailVerdict> {
  const reported = options.reported();
  if (!reported) await options.emit({ type: 'guardrail-start', check });
  const verdict =
    spec.kind === 'llm'
      ? llmGuardrailVerdict(await options.call(llmGuardrailRequest(spec.description, current.answer)))
      : await runFunction(findGuardrail(options.registry, options.task, spec), current, options);
  if (!reported) {
    await options.emit({
      type: 'guardrail-end',
      check,
      success: verdict.success,
      error: verdict.success ? null : verdict.error,
    });
  }
  return verdict;
}

async function runFunction(
  guardrail: Guardrail,
  current: TaskAnswer,
  options: GuardrailRunOptions,
): Promise<GuardrailVerdict> {
  const { task } = options;
  try {
    return await guardrail.check({
      raw: current.answer,
      json: current.outputJson,
      taskId: task.name,
      description: task.description,
      expectedOutput: task.expectedOutput,
      agent: options.agent,
    });
  } catch (error) {
    if (isCrewdError(error)) throw error;
    const reason = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : 'it threw';
    throw new CrewdError('TASK_FAILED', `its guardrail '${guardrail.name}' failed: ${reason}`, {
      cause: error,
    });
  }
}

/**
 * The answer after a passing check, by crewAI's rule: a string replaces the text (and is parsed again for a task
 * with `output_json`); an object replaces the JSON of such a task; anything else leaves the answer as it was.
 */
function replaced(
  current: TaskAnswer,
  result: unknown,
  check: GuardrailCheck,
  checkJson: StructuredOutputChecker | undefined,
): TaskAnswer {
  const structured = typeof result === 'object' && result !== null && checkJson !== undefined;
  if (typeof result !== 'string' && !structured) return current;
  const answer = typeof result === 'string' ? result : JSON.stringify(result);
  if (checkJson === undefined) return { answer, outputJson: null };
  const checked = checkJson(answer);
  if (!checked.valid) {
    throw new CrewdError(
      'OUTPUT_INVALID',
      `its guardrail ${label(check)} replaced the answer with one that does not match the output_json schema (${checked.problem})`,
    );
  }
  return { answer, outputJson: checked.value };
}

/** How messages name a guardrail: a function by name, a description by its start. */
function label(check: GuardrailCheck): string {
  if (check.guardrailType === 'function') return `'${check.guardrail}'`;
  const text = check.guardrail.replace(/\s+/g, ' ');
  return `"${text.length > 60 ? `${text.slice(0, 59)}…` : text}"`;
}
