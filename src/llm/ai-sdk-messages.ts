import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import type { ChatMessage, ToolSpec } from './chat-model.ts';

/** Our messages in the provider interface's prompt shape; the order is kept exactly, system messages included. */
export function toProviderPrompt(messages: readonly ChatMessage[]): LanguageModelV3Prompt {
  return messages.map((message): LanguageModelV3Message => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: [{ type: 'text', text: message.content }] };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        // A turn that only called tools carries no text part.
        const text =
          message.content === '' && calls.length > 0
            ? []
            : [{ type: 'text' as const, text: message.content }];
        return {
          role: 'assistant',
          content: [
            ...text,
            ...calls.map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.id,
              toolName: call.name,
              input: call.input,
            })),
          ],
        };
      }
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: message.toolName,
              output: { type: 'text', value: message.content },
            },
          ],
        };
    }
  });
}

/**
 * Our tool specs as function tools: the provider only reports the calls, the engine runs them and checks their
 * input against the schema, so malformed input reaches the engine, which tells the model what was wrong.
 */
export function toProviderTools(
  tools: readonly ToolSpec[] | undefined,
): LanguageModelV3FunctionTool[] | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return tools.map((spec) => ({
    type: 'function',
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
  }));
}
