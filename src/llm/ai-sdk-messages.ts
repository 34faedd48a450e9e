import { jsonSchema, tool } from 'ai';
import type { ModelMessage, Tool } from 'ai';
import type { ChatMessage, ToolSpec } from './chat-model.ts';

/** Our messages in the AI SDK's shape; the order is kept exactly, system messages included. */
export function toModelMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
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
 * Our tool specs as AI SDK tools without `execute`: the SDK only reports the calls, the engine runs them. The
 * schemas carry no validator, so malformed input reaches the engine, which tells the model what was wrong.
 */
export function toToolSet(tools: readonly ToolSpec[] | undefined): Record<string, Tool> | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((spec) => [
      spec.name,
      tool({ description: spec.description, inputSchema: jsonSchema(spec.inputSchema) }),
    ]),
  );
}
