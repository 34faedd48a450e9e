import type { Answer, ScriptedReceiver } from './scripted-receiver.ts';

/**
 * Answers in the wire formats of the model providers crewd speaks to, for a scripted loopback receiver: each
 * one answers `text` and, when given, one call of the tool `search`, with 12 prompt and 3 completion tokens.
 */
export interface FakeTurn {
  readonly text: string;
  readonly toolInput?: Record<string, unknown>;
}

function json(body: unknown): Answer {
  return (response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** OpenAI's Chat Completions, which Azure, Ollama, Groq, Mistral, DeepSeek, OpenRouter and NVIDIA NIM speak. */
export function chatCompletionsAnswer(turn: FakeTurn): Answer {
  return json({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text,
          ...(turn.toolInput === undefined
            ? {}
            : {
                tool_calls: [
                  {
                    id: 'call_1',
                    type: 'function',
                    function: { name: 'search', arguments: JSON.stringify(turn.toolInput) },
                  },
                ],
              }),
        },
        finish_reason: turn.toolInput === undefined ? 'stop' : 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  });
}

/** Anthropic's Messages API. */
export function messagesAnswer(turn: FakeTurn): Answer {
  return json({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'fake',
    content: [
      { type: 'text', text: turn.text },
      ...(turn.toolInput === undefined
        ? []
        : [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: turn.toolInput }]),
    ],
    stop_reason: turn.toolInput === undefined ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 3 },
  });
}

/** Google's Gemini `generateContent`. */
export function generateContentAnswer(turn: FakeTurn): Answer {
  return json({
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { text: turn.text },
            ...(turn.toolInput === undefined
              ? []
              : [{ functionCall: { name: 'search', args: turn.toolInput } }]),
          ],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3, totalTokenCount: 15 },
  });
}

/** Amazon Bedrock's Converse API. */
export function converseAnswer(turn: FakeTurn): Answer {
  return json({
    output: {
      message: {
        role: 'assistant',
        content: [
          { text: turn.text },
          ...(turn.toolInput === undefined
            ? []
            : [{ toolUse: { toolUseId: 'tooluse_1', name: 'search', input: turn.toolInput } }]),
        ],
      },
    },
    stopReason: turn.toolInput === undefined ? 'end_turn' : 'tool_use',
    usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
    metrics: { latencyMs: 1 },
  });
}

/**
 * A `fetch` that sends every request to `receiver` instead of the host it names, keeping path and query, and
 * records the URL it was meant for: lets a test see a provider's default base URL without leaving loopback.
 */
export function redirectingFetch(receiver: ScriptedReceiver, intended: string[]): typeof globalThis.fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    intended.push(url.href);
    return globalThis.fetch(`${receiver.url}${url.pathname}${url.search}`, init);
  };
}
