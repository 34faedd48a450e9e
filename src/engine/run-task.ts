import { renderTask } from '../crew/index.ts';
import type { AgentDefinition, TaskDefinition } from '../domain/crew.ts';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import { summarize } from '../domain/task-output.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import { addUsage, emptyUsage } from '../domain/usage.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { ChatRequest, ChatResponse } from '../llm/chat-model.ts';
import { abortable } from './abortable.ts';
import { agentModel, agentToolCallingModel, agentTools } from './agent-resources.ts';
import { runAgentLoop } from './agent-loop.ts';
import type { AgentLoopOptions } from './agent-loop.ts';
import { ListenerError } from './crew-run.ts';
import type { CrewRun } from './crew-run.ts';
import { applyGuardrails } from './guardrails.ts';
import type { TaskAnswer } from './guardrails.ts';
import { correctionRequest, guardrailRetrySection, systemPrompt, taskPrompt } from './prompts.ts';
import { rememberingToolBox } from './remembering-tool-box.ts';
import { createStructuredOutputChecker } from './structured-output.ts';
import type { TaskPlan } from './task-plan.ts';
import { StepReplay } from './step-journal.ts';
import type { StepJournal } from './step-journal.ts';
import { createToolBox } from './tool-box.ts';
import { saveOutputFile } from './save-output-file.ts';
import { withAgentLimits } from './agent-limits.ts';
import { withCurrentDate } from './task-date.ts';
import { withTriggerPayload } from './trigger-payload.ts';

/**
 * Runs one attempt of a task: emits `task-start`, the model calls and agent steps, and returns the output.
 * Emitting `task-end` is the process's job, since only it knows whether the run pauses there.
 * Any failure becomes `TASK_FAILED` naming the task; an abort rethrows the signal's reason.
 */
export async function runTask(run: CrewRun, plan: TaskPlan): Promise<TaskOutput> {
  const { signal } = run.request;
  try {
    const { task, agent } = renderTask(run.request.crew, plan.task, run.request.inputs);
    await run.emit({ type: 'task-start', taskId: task.name, agent: agent.role, attempt: plan.attempt });
    // One replay for every execution of the attempt: a retry goes on through the journal where the last one stopped.
    const replay = replayFor(run.request.checkpoint.journal, task.name, plan.attempt);
    const output = await withAgentLimits(run, agent, (limited) =>
      attemptTask(limited, plan, task, agent, replay),
    );
    return await saveOutputFile(run.request, task, output);
  } catch (error) {
    if (error instanceof ListenerError) throw error;
    signal.throwIfAborted();
    const name = plan.task.name;
    throw new CrewdError('TASK_FAILED', `Task '${name}' failed: ${causeText(error)}`, {
      cause: error,
      details: { task_id: name },
    });
  }
}

async function attemptTask(
  run: CrewRun,
  plan: TaskPlan,
  task: TaskDefinition,
  agent: AgentDefinition,
  replay: StepReplay | undefined,
): Promise<TaskOutput> {
  const { request } = run;
  const { signal } = request;
  const box = createToolBox(agentTools(request, agent, task), {
    executionId: request.executionId,
    taskId: task.name,
    agent: agent.name,
  });
  const tools = rememberingToolBox(box, { replay, cache: agent.cache === false ? undefined : run.toolCache });
  const model = request.models(agentModel(request, agent));
  const toolCallingSpec = agentToolCallingModel(request, agent);
  const toolCallingModel = toolCallingSpec === undefined ? model : request.models(toolCallingSpec);
  const check =
    task.outputJson === undefined ? undefined : createStructuredOutputChecker(task.name, task.outputJson);
  const dated = withCurrentDate(task, agent, (request.clock ?? (() => new Date()))());
  const prompt = taskPrompt({ ...plan, task: withTriggerPayload(request.crew, dated, request.inputs) });
  let usage = emptyUsage;

  const call = async (chat: ChatRequest): Promise<ChatResponse> => {
    const recorded = replay?.nextAnswer();
    if (recorded !== undefined) {
      usage = addUsage(usage, recorded.usage);
      return { ...recorded.answer, usage: recorded.usage };
    }
    await run.limiter.wait(agent.name, agent.maxRpm, signal);
    // crewAI's function_calling_llm: turns that offer tools go to it, the others to the agent's model.
    const chosen = chat.tools !== undefined && chat.tools.length > 0 ? toolCallingModel : model;
    const startedAt = performance.now();
    const response = await abortable(chosen.generate(chat, signal), signal);
    const callUsage = usageOf(response);
    usage = addUsage(usage, callUsage);
    const durationMs = performance.now() - startedAt;
    await run.emit({
      type: 'model-call-end',
      taskId: task.name,
      attempt: plan.attempt,
      answer: { text: response.text, toolCalls: response.toolCalls },
      model: chosen.id,
      usage: callUsage,
      durationMs,
    });
    return response;
  };
  const step = (thought: string, tool: string | null, toolInput: unknown, result: string, id?: string) =>
    run.emit({
      type: 'step-end',
      step: {
        taskId: task.name,
        agent: agent.role,
        prompt,
        thought,
        tool,
        toolInput,
        result,
        ...(id === undefined ? {} : { toolCallId: id }),
      },
    });
  const loop: Omit<AgentLoopOptions, 'messages'> = {
    call,
    tools,
    maxIter: agent.maxIter,
    responseSchema: task.outputJson === undefined ? undefined : { name: task.name, schema: task.outputJson },
    signal,
    // A replayed call's step is in the log already.
    onToolStep: async ({ thought, call: toolCall, result }) => {
      if (tools.replayed(toolCall.id)) return;
      await step(thought, tools.toolName(toolCall.name), toolCall.input, result, toolCall.id);
    },
  };

  /** The agent works the task to a final answer, checked against `output_json` when the task has one. */
  const answer = async (userPrompt: string): Promise<TaskAnswer> => {
    let result = await runAgentLoop({
      ...loop,
      messages: [
        { role: 'system', content: systemPrompt(agent) },
        { role: 'user', content: userPrompt },
      ],
    });
    if (check === undefined) return { answer: result.answer, outputJson: null };
    let checked = check(result.answer);
    if (!checked.valid) {
      // One more chance, telling the agent what was wrong; a second miss fails the task.
      const messages = [
        ...result.messages,
        { role: 'user' as const, content: correctionRequest(checked.problem) },
      ];
      result = await runAgentLoop({ ...loop, messages });
      checked = check(result.answer);
    }
    if (!checked.valid) {
      throw new CrewdError(
        'OUTPUT_INVALID',
        `the answer of task '${task.name}' does not match its output_json schema (${checked.problem})`,
      );
    }
    return { answer: result.answer, outputJson: checked.value };
  };

  const result = await applyGuardrails(await answer(prompt), {
    task,
    agent: agent.role,
    attempt: plan.attempt,
    registry: request.tools,
    call,
    emit: (event) => run.emit(event),
    reported: () => replay?.guardrailReported() ?? false,
    retry: (error, previous) => answer(prompt + guardrailRetrySection(error, previous)),
    checkJson: check,
  });
  await step(result.answer, null, null, result.answer);
  return {
    taskId: task.name,
    description: task.description,
    expectedOutput: task.expectedOutput,
    summary: summarize(result.answer),
    agent: agent.role,
    output: result.answer,
    outputJson: result.outputJson,
    usage,
    attempt: plan.attempt,
  };
}

/** A replay of the journal when it belongs to this very attempt; a journal of another attempt is stale. */
function replayFor(
  journal: StepJournal | undefined,
  taskId: string,
  attempt: number,
): StepReplay | undefined {
  if (journal === undefined || journal.taskId !== taskId || journal.attempt !== attempt) return undefined;
  return new StepReplay(journal.entries);
}

function usageOf(response: ChatResponse): TokenUsage {
  const { promptTokens, completionTokens } = response.usage;
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    successfulRequests: 1,
  };
}

/** Only our own messages reach users; anything else is reported without its text. */
function causeText(error: unknown): string {
  return isCrewdError(error) ? error.message : 'an internal error occurred';
}
