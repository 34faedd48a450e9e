import type { ChatRequest, ChatResponse } from './chat-model.ts';
import { schemaExample } from './schema-example.ts';

/** How every stand-in answer starts, so people (and tests) can tell one from a model's work at a glance. */
export const standInLabel = 'Offline stand-in answer';

/** What the stand-in says it is, and how to get a model's answer instead. */
export function standInNotice(fileName: string): string {
  return (
    `${standInLabel}: no model wrote this. The replay file "${fileName}" has no recording for these inputs ` +
    'and feedback, so the offline model answers with this placeholder and the crew runs to the end. ' +
    'For real answers, give the crew a real model and its key: set its llm to e.g. openai/gpt-4o-mini with ' +
    'OPENAI_API_KEY set (or remove llm and set MODEL), or run it with crewd run --model openai/gpt-4o-mini.'
  );
}

/**
 * The answer the offline model gives where its replay file has none: labelled as a stand-in, shaped like what
 * the request asks for (a JSON object matching its response schema, else text that names the task), and never a
 * tool call, so an agent with tools finishes its task at once instead of calling tools for ever.
 */
export function standInAnswer(request: ChatRequest, fileName: string): ChatResponse {
  const notice = standInNotice(fileName);
  const usage = { promptTokens: 0, completionTokens: 0 };
  if (request.responseSchema !== undefined) {
    let first = true;
    const value = schemaExample(request.responseSchema.schema, (path) => {
      const text = first ? notice : `${standInLabel}${path === '' ? '' : ` (${path})`}`;
      first = false;
      return text;
    });
    return { text: JSON.stringify(value, null, 2), toolCalls: [], usage };
  }
  const asked = taskLine(request);
  return { text: asked === undefined ? notice : `${notice}\n\nAsked for: ${asked}`, toolCalls: [], usage };
}

/** The first line of the request's first user message, without crewd's `Current task:` lead-in. */
function taskLine(request: ChatRequest): string | undefined {
  const message = request.messages.find((candidate) => candidate.role === 'user');
  const line = message?.content
    .replace(/^Current task:\s*/, '')
    .split('\n')
    .find((candidate) => candidate.trim() !== '')
    ?.trim();
  if (line === undefined) return undefined;
  const characters = [...line];
  return characters.length > 200 ? `${characters.slice(0, 200).join('')}…` : line;
}
