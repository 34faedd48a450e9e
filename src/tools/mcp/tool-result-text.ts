/** One part of an MCP tool result's `content`, loosely: servers add kinds as the protocol grows. */
interface ContentPart {
  readonly type: string;
  readonly text?: unknown;
  readonly mimeType?: unknown;
  readonly uri?: unknown;
  readonly name?: unknown;
  readonly resource?: { readonly uri?: unknown; readonly text?: unknown; readonly mimeType?: unknown };
}

/** What an MCP `tools/call` returns, as far as the text the model sees needs it. */
export interface McpToolResult {
  readonly content?: readonly ContentPart[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  /** Servers on the 2024-10-07 protocol answer with this instead of `content`. */
  readonly toolResult?: unknown;
}

/**
 * The text the model sees for a result: text parts joined by newlines, images, audio and resources named in a
 * short bracket (their bytes mean nothing to a chat model), structured content as JSON when there is no text.
 * A result marked `isError` throws with its text, so the engine reports it as the tool's failure.
 */
export function toolResultText(result: McpToolResult): string {
  const parts = (result.content ?? []).map(partText);
  let text = parts.join('\n');
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (text === '' && result.toolResult !== undefined) {
    text = typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult);
  }
  if (result.isError === true) throw new Error(text === '' ? 'the tool reported an error' : text);
  return text;
}

function partText(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? part.text : '';
    case 'image':
    case 'audio':
      return `[${part.type}${typeof part.mimeType === 'string' ? `: ${part.mimeType}` : ''}]`;
    case 'resource_link':
      return `[resource link: ${String(part.name ?? part.uri)} (${String(part.uri)})]`;
    case 'resource': {
      const resource = part.resource ?? {};
      if (typeof resource.text === 'string') return resource.text;
      return `[resource: ${String(resource.uri)}${typeof resource.mimeType === 'string' ? `, ${resource.mimeType}` : ''}]`;
    }
    default:
      return `[${part.type} content]`;
  }
}
