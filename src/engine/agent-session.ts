import { clipText } from '../domain/clip-text.ts';
import type { AgentDefinition, TaskDefinition } from '../domain/crew.ts';
import { addUsage, emptyUsage } from '../domain/usage.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { ChatRequest, ChatResponse } from '../llm/chat-model.ts';
import { abortable } from './abortable.ts';
import { estimateCall, usageOf } from './call-cost.ts';
import { agentModel, agentToolCallingModel } from './agent-resources.ts';
import type { AgentLoopOptions } from './agent-loop.ts';
import type { RunContext } from './run-context.ts';
import type { StepReplay } from './step-journal.ts';
import type { Tool } from './tool.ts';
import { rememberingToolBox } from './remembering-tool-box.ts';
import { createToolBox } from './tool-box.ts';

/** What one task attempt's agents share: the replay of its journal and the tokens they all spent. */
export interface AttemptShared {
  readonly task: TaskDefinition;
  readonly attempt: number;
  readonly replay: StepReplay | undefined;
  usage: TokenUsage;
}

/** One agent's conversation within a task attempt: the task's own agent, or a coworker a delegation started. */
export interface AgentWork {
  readonly agent: AgentDefinition;
  readonly prompt: string;
  /** '' for the task's agent; the delegation's path (tool call ids, each ending in '>') for a coworker. */
  readonly scope: string;
  readonly tools: readonly Tool[];
  /** Tools whose results are never cached (a delegation asks a coworker each time). */
  readonly uncached?: ReadonlySet<string>;
}

export interface AgentSession {
  /** Everything the agent loop needs but the messages. */
  readonly loop: Omit<AgentLoopOptions, 'messages' | 'responseSchema'>;
  /** Reports one step of this agent: a tool call with its result, or the final answer (tool null). */
  step(thought: string, tool: string | null, toolInput: unknown, result: string, id?: string): Promise<void>;
}

/**
 * Wires one agent's conversation to the run: its models (with rate limiting, usage and `model-call-end`), its tools
 * (with the tool cache, see remembering-tool-box.ts), the journal's replay (answers and results already saved are not asked or run again) and
 * its step events. Ids in the journal and in events carry the conversation's scope, so a coworker's calls never
 * mix with its manager's.
 */
export function openAgentSession(run: RunContext, shared: AttemptShared, work: AgentWork): AgentSession {
  const { request } = run;
  const { signal } = request;
  const { agent, scope } = work;
  const taskId = shared.task.name;
  const tools = rememberingToolBox(
    createToolBox(work.tools, { executionId: request.executionId, taskId, agent: agent.name }),
    {
      replay: shared.replay,
      cache: agent.cache === false ? undefined : run.toolCache,
      scope,
      uncached: work.uncached,
    },
  );
  const model = request.models(agentModel(request, agent));
  const toolCallingSpec = agentToolCallingModel(request, agent);
  const toolCallingModel = toolCallingSpec === undefined ? model : request.models(toolCallingSpec);
  const replay = shared.replay;

  const call = async (chat: ChatRequest): Promise<ChatResponse> => {
    const recorded = replay?.nextAnswer(scope);
    if (recorded !== undefined) {
      shared.usage = addUsage(shared.usage, recorded.usage);
      return { ...recorded.answer, usage: recorded.usage };
    }
    // crewAI's function_calling_llm: turns that offer tools go to it, the others to the agent's model.
    const chosen = chat.tools !== undefined && chat.tools.length > 0 ? toolCallingModel : model;
    await run.beforeModelCall({
      taskId,
      attempt: shared.attempt,
      agent: agent.role,
      model: chosen.id,
      attemptUsage: shared.usage,
      estimate: () => estimateCall(chat, chosen.id, request.prices),
    });
    await run.limiter.wait(agent.name, agent.maxRpm, signal);
    const startedAt = performance.now();
    const response = await abortable(chosen.generate(chat, signal), signal);
    const callUsage = usageOf(response, chosen.id, request.prices);
    shared.usage = addUsage(shared.usage, callUsage);
    await run.emit({
      type: 'model-call-end',
      taskId,
      attempt: shared.attempt,
      agent: agent.role,
      scope,
      answer: { text: response.text, toolCalls: response.toolCalls },
      model: chosen.id,
      usage: callUsage,
      durationMs: performance.now() - startedAt,
    });
    return response;
  };
  // Every step repeats the prompt (the task's description with its inputs and context) and a final answer's
  // thought repeats its result: steps keep those copies clipped, the model is given them whole.
  const stepPrompt = clipText(work.prompt);
  const step: AgentSession['step'] = (thought, tool, toolInput, result, id) =>
    run.emit({
      type: 'step-end',
      step: {
        taskId,
        agent: agent.role,
        prompt: stepPrompt,
        thought: clipText(thought),
        tool,
        toolInput,
        result,
        ...(id === undefined ? {} : { toolCallId: `${scope}${id}` }),
      },
    });
  return {
    step,
    loop: {
      call,
      tools,
      maxIter: agent.maxIter,
      signal,
      // A replayed call's step is in the log already.
      onToolStep: async ({ thought, call: toolCall, result }) => {
        if (tools.replayed(toolCall.id)) return;
        await step(thought, tools.toolName(toolCall.name), toolCall.input, result, toolCall.id);
      },
    },
  };
}

/** A fresh tally for one attempt of `task`. */
export function attemptShared(
  task: TaskDefinition,
  attempt: number,
  replay: StepReplay | undefined,
): AttemptShared {
  return { task, attempt, replay, usage: emptyUsage };
}
