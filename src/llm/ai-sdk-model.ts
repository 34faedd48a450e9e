import type { LanguageModelV3, LanguageModelV3Content } from '@ai-sdk/provider';
import { ModelCallError } from '../domain/errors.ts';
import { toProviderPrompt, toProviderTools } from './ai-sdk-messages.ts';
import type { ChatModel, ChatRequest, ChatResponse, ToolCall } from './chat-model.ts';
import { toModelCallError } from './to-model-call-error.ts';

export interface AiSdkModelOptions {
  /** `provider/model`, as written in the crew. */
  readonly id: string;
  /** A provider's model, e.g. `createOpenAI(...).chat(name)` or `createAnthropic(...)(name)`. */
  readonly languageModel: LanguageModelV3;
  /** Limit for one call; a slower answer fails as a retryable timeout. */
  readonly timeoutMs: number;
  /** Provider options sent with every call, keyed by provider name. */
  readonly providerOptions?: Record<string, Record<string, string | number | boolean>>;
  /** Sampling settings sent with every call, as the crew's `llm` gives them. */
  readonly settings?: CallSettings;
  /** Clock for `Retry-After` dates. */
  readonly now?: () => number;
}

/** The call settings crewAI's `llm` objects carry, in the AI SDK's names. */
export interface CallSettings {
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  readonly topP?: number;
}

/**
 * A `ChatModel` over an AI SDK provider model, called through the provider interface itself: one request, no SDK
 * retries (ours wrap this), no SDK tool loop or output parsing (the engine runs tools and checks answers). This
 * skips `generateText`'s own prompt validation and bookkeeping, which cost as much CPU as the request itself.
 */
export function createAiSdkModel(options: AiSdkModelOptions): ChatModel {
  const now = options.now ?? Date.now;
  const model = options.languageModel;

  async function generate(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    signal.throwIfAborted();
    const call = new AbortController();
    const abortCall = (): void => call.abort(signal.reason);
    signal.addEventListener('abort', abortCall, { once: true });
    const timer = setTimeout(
      () => call.abort(new ModelCallError(timeoutMessage(options.timeoutMs), { retryable: true })),
      options.timeoutMs,
    );
    const tools = toProviderTools(request.tools);
    const schema = request.responseSchema;
    try {
      const result = await model.doGenerate({
        ...options.settings,
        prompt: toProviderPrompt(request.messages),
        ...(tools === undefined ? {} : { tools, toolChoice: { type: 'auto' } }),
        ...(schema === undefined
          ? {}
          : { responseFormat: { type: 'json', schema: schema.schema, name: schema.name } }),
        ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
        abortSignal: call.signal,
      });
      return {
        text: answerText(result.content),
        toolCalls: toolCalls(result.content),
        usage: {
          promptTokens: result.usage.inputTokens.total ?? 0,
          completionTokens: result.usage.outputTokens.total ?? 0,
        },
      };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (call.signal.aborted) throw call.signal.reason;
      throw toModelCallError(error, now());
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', abortCall);
    }
  }

  return { id: options.id, generate };
}

function answerText(content: readonly LanguageModelV3Content[]): string {
  let text = '';
  for (const part of content) if (part.type === 'text') text += part.text;
  return text;
}

/** Tool calls with their input parsed; input that is not JSON stays text, for the engine to refuse. */
function toolCalls(content: readonly LanguageModelV3Content[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const part of content) {
    if (part.type !== 'tool-call') continue;
    calls.push({ id: part.toolCallId, name: part.toolName, input: parseInput(part.input) });
  }
  return calls;
}

function parseInput(input: string): unknown {
  if (input.trim() === '') return {};
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

function timeoutMessage(timeoutMs: number): string {
  return `model call timed out after ${timeoutMs} ms`;
}
