import { hashJson as hash } from '../domain/canonical-json.ts';
import { withoutFeedback } from '../domain/feedback-slot.ts';
import type { ChatMessage, ChatRequest } from './chat-model.ts';

export interface ReplayKeys {
  /** Exactly this request. */
  readonly key: string;
  /** This request with every human feedback slot blanked, so a demo answers whatever feedback is given. */
  readonly lenientKey: string;
}

/**
 * Keys of a request in a replay file: sha256 of the canonical JSON of its messages, tool specs and response
 * schema. The model id is left out, so a file recorded with one model replays under `replay/<file>`.
 */
export function replayKeys(request: ChatRequest): ReplayKeys {
  return {
    key: hash(keyMaterial(request, (text) => text)),
    lenientKey: hash(keyMaterial(request, withoutFeedback)),
  };
}

function keyMaterial(request: ChatRequest, text: (content: string) => string): unknown {
  return {
    messages: request.messages.map((message) => normalizeMessage(message, text)),
    tools: request.tools ?? [],
    responseSchema: request.responseSchema ?? null,
  };
}

/** Absent and empty tool call lists are the same request. */
function normalizeMessage(message: ChatMessage, text: (content: string) => string): unknown {
  if (message.role === 'assistant') {
    const toolCalls = message.toolCalls ?? [];
    return {
      role: message.role,
      content: text(message.content),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    };
  }
  return { ...message, content: text(message.content) };
}
