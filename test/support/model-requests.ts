import type { FakeOpenAIServer, RecordedRequest } from './fake-openai-server.ts';
import type { HeldPrompts } from './held-prompts.ts';

type Message = { role: string; content: string };

function textOf(request: RecordedRequest, role: string): string {
  return (request.body.messages as Message[])
    .filter((message) => message.role === role)
    .map((message) => message.content)
    .join('\n');
}

/** The user messages of a recorded model request, joined. */
export const userText = (request: RecordedRequest): string => textOf(request, 'user');

/** The system messages of a recorded model request, joined. */
export const systemText = (request: RecordedRequest): string => textOf(request, 'system');

/** The recorded requests whose user messages contain `words`. */
export function requestsMentioning(model: FakeOpenAIServer, words: string): RecordedRequest[] {
  return model.requests.filter((request) => userText(request).includes(words));
}

/** Answers that never echo the prompt, so counting prompts by their words stays exact; `slow` ones hang. */
export function numberedAnswers(isSlow: (request: RecordedRequest) => boolean = () => false) {
  let answers = 0;
  return (request: RecordedRequest) => ({
    content: `Answer number ${++answers}.`,
    ...(isSlow(request) ? { delayMs: 60_000 } : {}),
  });
}

/** `numberedAnswers`, each held until its `held` prompt is let go (the others answer at once). */
export function heldNumberedAnswers(held: HeldPrompts) {
  let answers = 0;
  return (request: RecordedRequest) => {
    const holding = held.find(userText(request));
    return {
      content: `Answer number ${++answers}.`,
      ...(holding === undefined ? {} : { heldUntil: holding.until }),
    };
  };
}

/** The content of the first tool result a recorded model request carries, or undefined before any tool ran. */
export function toolResultText(request: RecordedRequest): string | undefined {
  const result = (request.body.messages as Message[]).find((message) => message.role === 'tool');
  return result === undefined ? undefined : String(result.content);
}

/** The names of the tools a recorded model request offers the model. */
export function offeredTools(request: RecordedRequest): string[] {
  return ((request.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
}
