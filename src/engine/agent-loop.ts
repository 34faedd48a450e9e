import { CrewdError } from '../domain/errors.ts';
import { defuseSlotMarkers } from '../domain/feedback-slot.ts';
import type { ChatMessage, ChatRequest, ChatResponse, ToolCall } from '../llm/chat-model.ts';
import { finalAnswerRequest } from './prompts.ts';
import type { ToolBox } from './tool-box.ts';

/** One tool call the agent made, with its result. */
export interface ToolStep {
  /** The model's text that came with the call. */
  readonly thought: string;
  readonly call: ToolCall;
  readonly result: string;
}

export interface AgentLoopOptions {
  /** Makes one model call (rate limiting, usage and events are the caller's). */
  readonly call: (request: ChatRequest) => Promise<ChatResponse>;
  readonly messages: readonly ChatMessage[];
  readonly tools: ToolBox;
  /** Model calls with tools before the agent is made to answer. */
  readonly maxIter: number;
  readonly responseSchema: ChatRequest['responseSchema'];
  readonly signal: AbortSignal;
  readonly onToolStep: (step: ToolStep) => Promise<void>;
}

export interface AgentLoopResult {
  readonly answer: string;
  /** The whole conversation, ending with the final answer, so a follow-up question can continue it. */
  readonly messages: readonly ChatMessage[];
}

/**
 * Lets the agent call tools until it answers without any. As in crewAI, once `maxIter` calls are spent the
 * agent gets one last call without tools, asked for its final answer.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const messages = [...options.messages];
  const { specs } = options.tools;
  const withSchema = options.responseSchema === undefined ? {} : { responseSchema: options.responseSchema };
  for (let iteration = 0; iteration < Math.max(1, options.maxIter); iteration += 1) {
    const response = await options.call({
      messages,
      ...(specs.length > 0 ? { tools: specs } : {}),
      ...withSchema,
    });
    if (response.toolCalls.length === 0) return answered(messages, response.text);
    messages.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls });
    for (const call of response.toolCalls) {
      const result = await options.tools.run(call, options.signal);
      await options.onToolStep({ thought: response.text, call, result });
      // A tool's result is untrusted text: it must not open or close a feedback slot.
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: defuseSlotMarkers(result),
      });
    }
  }
  messages.push({ role: 'user', content: finalAnswerRequest });
  const last = await options.call({ messages, ...withSchema });
  return answered(messages, last.text);
}

/** The final answer; an empty one is a failed call, as in crewAI, not an output to pass on. */
function answered(messages: ChatMessage[], answer: string): AgentLoopResult {
  if (answer.trim() === '') throw new CrewdError('MODEL_ERROR', 'the model gave an empty answer');
  return { answer, messages: [...messages, { role: 'assistant', content: answer }] };
}
