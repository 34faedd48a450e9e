import { generateText, jsonSchema, NoObjectGeneratedError, Output } from 'ai';
import type { LanguageModel } from 'ai';
import { ModelCallError } from '../domain/errors.ts';
import { toModelMessages, toToolSet } from './ai-sdk-messages.ts';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.ts';
import { toModelCallError } from './to-model-call-error.ts';

export interface AiSdkModelOptions {
  /** `provider/model`, as written in the crew. */
  readonly id: string;
  readonly languageModel: LanguageModel;
  /** Limit for one call; a slower answer fails as a retryable timeout. */
  readonly timeoutMs: number;
  /** Provider options sent with every call, keyed by provider name. */
  readonly providerOptions?: Record<string, Record<string, string | number | boolean>>;
  /** Clock for `Retry-After` dates. */
  readonly now?: () => number;
}

/** A `ChatModel` over any AI SDK language model: one `generateText` step, no SDK retries (ours wrap this). */
export function createAiSdkModel(options: AiSdkModelOptions): ChatModel {
  const now = options.now ?? Date.now;

  async function generate(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    signal.throwIfAborted();
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new ModelCallError(timeoutMessage(options.timeoutMs), { retryable: true })),
      options.timeoutMs,
    );
    const tools = toToolSet(request.tools);
    const schema = request.responseSchema;
    try {
      const result = await generateText({
        model: options.languageModel,
        messages: toModelMessages(request.messages),
        // The system messages are the crew's own role and goal text, never client input.
        allowSystemInMessages: true,
        ...(tools === undefined ? {} : { tools }),
        ...(schema === undefined
          ? {}
          : { output: Output.object({ schema: jsonSchema(schema.schema), name: schema.name }) }),
        ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
        maxRetries: 0,
        abortSignal: AbortSignal.any([signal, timeout.signal]),
      });
      return {
        text: result.text,
        toolCalls: result.toolCalls.map((call) => ({
          id: call.toolCallId,
          name: call.toolName,
          input: call.input as unknown,
        })),
        usage: {
          promptTokens: result.usage.inputTokens ?? 0,
          completionTokens: result.usage.outputTokens ?? 0,
        },
      };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (timeout.signal.aborted) throw timeout.signal.reason;
      // The answer is not JSON: still an answer; checking it against the schema is the engine's job.
      if (NoObjectGeneratedError.isInstance(error) && error.text !== undefined) {
        return {
          text: error.text,
          toolCalls: [],
          usage: {
            promptTokens: error.usage?.inputTokens ?? 0,
            completionTokens: error.usage?.outputTokens ?? 0,
          },
        };
      }
      throw toModelCallError(error, now());
    } finally {
      clearTimeout(timer);
    }
  }

  return { id: options.id, generate };
}

function timeoutMessage(timeoutMs: number): string {
  return `model call timed out after ${timeoutMs} ms`;
}
