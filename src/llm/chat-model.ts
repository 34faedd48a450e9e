import type { JsonSchema, ModelSpec } from '../domain/crew.ts';

/** The model port: one chat completion with native tool calling. Adapters live beside this file. */
export interface ChatModel {
  /** `provider/model`, as written in the crew. */
  readonly id: string;
  /**
   * Makes one model call. Rejects with `ModelCallError` (retryable for 429, 5xx, timeouts and resets) and with
   * the signal's reason when aborted.
   */
  generate(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse>;
}

export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ToolCall[] }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly content: string;
    };

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolSpec[];
  /** Asks for a JSON answer that matches this schema (structured output). */
  readonly responseSchema?: { readonly name: string; readonly schema: JsonSchema };
}

export interface ChatResponse {
  /** The answer text; empty when the model only called tools. */
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage: { readonly promptTokens: number; readonly completionTokens: number };
}

/**
 * Turns a crew's model into a model: a spec with call settings, or a bare name (`openai/gpt-4o-mini`, `gpt-4o`)
 * standing for a spec with none. Throws a `CONFIG_INVALID` CrewdError naming the model and what it needs.
 */
export type ModelResolver = (model: ModelSpec | string) => ChatModel;
