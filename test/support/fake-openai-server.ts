import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the fake server. */
export interface FakeReply {
  /** Assistant text. */
  content?: string;
  /** Native tool calls; ids are generated per server: call_1, call_2… */
  toolCalls?: { name: string; arguments: unknown }[];
  /** Defaults to `{prompt_tokens: 10, completion_tokens: 5}`. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** An error status (e.g. 429, 500): answers an OpenAI-style error body. */
  status?: number;
  /** The `error.message` of an error body; lets tests check that provider text never leaks. */
  errorMessage?: string;
  /** Extra response headers, e.g. `{'retry-after': '1'}`. */
  headers?: Record<string, string>;
  /** Wait before answering (slow answers, timeouts). */
  delayMs?: number;
  /** Answer only once this settles: a test holds the call until it lets it go. */
  heldUntil?: Promise<unknown>;
  /**
   * Answers this many bytes of assistant text (`x`s, with no Content-Length), written as the client reads them so
   * the server never holds the answer: a self-hosted server without `max_tokens` running away.
   */
  hugeContentBytes?: number;
}

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary request fields
  body: any;
}

export type FakeResponder = (request: RecordedRequest) => FakeReply;

export interface FakeOpenAIServer {
  /** Base URL ending in /v1, for OPENAI_BASE_URL. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Requests whose client went away while their answer was delayed (a cancelled model call). */
  readonly abandoned: RecordedRequest[];
  /** Chat requests answered so far (a completion or an error), in the order their answers were sent. */
  readonly answered: RecordedRequest[];
  /** For each `hugeContentBytes` answer: the bytes written, and whether the client closed before its end. */
  readonly huge: { written: number; cutShort: boolean }[];
  /** Queues replies (FIFO); the queue is used before the responder. */
  enqueue(...replies: FakeReply[]): void;
  respondWith(responder: FakeResponder): void;
  /** Stops the server; requests still in flight are ended. */
  close(): Promise<void>;
}

const defaultUsage = { prompt_tokens: 10, completion_tokens: 5 };

/** Starts a fake OpenAI-compatible Chat Completions server on 127.0.0.1 with a free port. */
export async function startFakeOpenAI(options: { respond?: FakeResponder } = {}): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const abandoned: RecordedRequest[] = [];
  const answered: RecordedRequest[] = [];
  const huge: { written: number; cutShort: boolean }[] = [];
  const queue: FakeReply[] = [];
  let responder: FakeResponder | undefined = options.respond;
  let nextToolCall = 1;
  let nextCompletion = 1;
  const pendingDelays = new Set<() => void>();
  let closing = false;

  const server = createServer((request, response) => {
    void handle(request, response).catch(() => response.destroy());
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const recorded: RecordedRequest = {
      path: (request.url ?? '/').split('?')[0] ?? '/',
      headers: { ...request.headers },
      body: parseBody(await readBody(request)),
    };
    requests.push(recorded);

    if (request.method === 'GET' && recorded.path === '/v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }],
      });
      return;
    }
    if (request.method !== 'POST' || recorded.path !== '/v1/chat/completions') {
      sendJson(response, 404, { error: { message: 'Not found', type: 'invalid_request_error', code: null } });
      return;
    }

    const reply = queue.shift() ?? responder?.(recorded) ?? defaultReply(recorded);
    if ((reply.delayMs !== undefined && reply.delayMs > 0) || reply.heldUntil !== undefined) {
      const answered = await delay(reply.delayMs ?? 0, reply.heldUntil, response);
      if (!answered) {
        if (!closing) abandoned.push(recorded);
        return;
      }
    }
    if (response.destroyed) return;
    const headers = reply.headers ?? {};
    if (reply.status !== undefined && reply.status >= 400) {
      sendJson(
        response,
        reply.status,
        {
          error: {
            message: reply.errorMessage ?? `Fake error with status ${reply.status}`,
            type: reply.status === 429 ? 'rate_limit_exceeded' : 'server_error',
            code: null,
          },
        },
        headers,
      );
      answered.push(recorded);
      return;
    }
    const completion = {
      id: `chatcmpl-${nextCompletion++}`,
      created: Math.floor(Date.now() / 1000),
      model: typeof recorded.body?.model === 'string' ? recorded.body.model : 'fake-model',
      toolCalls: (reply.toolCalls ?? []).map((call) => ({
        id: `call_${nextToolCall++}`,
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      })),
      content: reply.content,
      usage: reply.usage ?? defaultUsage,
    };
    if (reply.hugeContentBytes !== undefined) {
      huge.push(await sendHuge(response, completion, reply.hugeContentBytes));
    } else if (recorded.body?.stream === true) {
      sendStream(response, completion, recorded.body?.stream_options?.include_usage === true, headers);
    } else {
      sendCompletion(response, completion, headers);
    }
    answered.push(recorded);
  }

  /**
   * Resolves true after `ms` and once `heldUntil` has settled, or false as soon as the client goes away or the
   * server closes.
   */
  function delay(
    ms: number,
    heldUntil: Promise<unknown> | undefined,
    response: ServerResponse,
  ): Promise<boolean> {
    return new Promise((resolve) => {
      let finished = false;
      let waited = false;
      let released = heldUntil === undefined;
      const finish = (answered: boolean): void => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        pendingDelays.delete(cancel);
        response.off('close', onClose);
        resolve(answered);
      };
      const cancel = (): void => {
        finish(false);
        response.destroy();
      };
      const onClose = (): void => finish(false);
      const answerWhenReady = (): void => {
        if (waited && released) finish(true);
      };
      const timer = setTimeout(() => {
        waited = true;
        answerWhenReady();
      }, ms);
      const release = (): void => {
        released = true;
        answerWhenReady();
      };
      heldUntil?.then(release, release);
      pendingDelays.add(cancel);
      response.on('close', onClose);
      // A client that gave up before its body was read (a short timeout on a busy machine) closed already.
      if (response.socket === null || response.socket.destroyed) finish(false);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    abandoned,
    answered,
    huge,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    respondWith: (next) => {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const cancel of [...pendingDelays]) cancel();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Completion {
  id: string;
  created: number;
  model: string;
  content: string | undefined;
  toolCalls: { id: string; name: string; arguments: string }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

function defaultReply(request: RecordedRequest): FakeReply {
  const messages: unknown[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
  const lastUser = [...messages].reverse().find((message) => field(message, 'role') === 'user');
  return { content: `Fake answer to: ${messageText(field(lastUser, 'content')).slice(0, 60)}` };
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part: unknown) => messageText(field(part, 'text'))).join('');
  }
  return '';
}

function usageOf(completion: Completion) {
  const { prompt_tokens, completion_tokens } = completion.usage;
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function finishReason(completion: Completion): string {
  return completion.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function sendCompletion(
  response: ServerResponse,
  completion: Completion,
  headers: Record<string, string>,
): void {
  const message: Record<string, unknown> = { role: 'assistant', content: completion.content ?? null };
  if (completion.toolCalls.length > 0) {
    message.tool_calls = completion.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  sendJson(
    response,
    200,
    {
      id: completion.id,
      object: 'chat.completion',
      created: completion.created,
      model: completion.model,
      choices: [{ index: 0, message, finish_reason: finishReason(completion), logprobs: null }],
      usage: usageOf(completion),
    },
    headers,
  );
}

/** Writes a completion whose content is `contentBytes` of `x`, a chunk at a time, as fast as the client reads. */
function sendHuge(
  response: ServerResponse,
  completion: Completion,
  contentBytes: number,
): Promise<{ written: number; cutShort: boolean }> {
  const head = JSON.stringify({
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: [
      { index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'stop', logprobs: null },
    ],
    usage: usageOf(completion),
  });
  // The content goes where the empty string stands in the completion above.
  const split = head.indexOf('"content":""') + '"content":"'.length;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Promise((resolve) => {
    let written = 0;
    let left = contentBytes;
    const finish = (cutShort: boolean): void => {
      response.off('drain', write);
      response.off('close', closed);
      resolve({ written, cutShort });
    };
    const closed = (): void => finish(!response.writableFinished);
    const send = (data: Buffer | string): boolean => {
      written += Buffer.byteLength(data);
      return response.write(data);
    };
    function write(): void {
      while (left > 0) {
        if (response.destroyed) return;
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!send(piece)) return;
      }
      send(head.slice(split));
      response.end();
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.on('drain', write);
    response.on('close', closed);
    send(head.slice(0, split));
    write();
  });
}

function sendStream(
  response: ServerResponse,
  completion: Completion,
  includeUsage: boolean,
  headers: Record<string, string>,
): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    const data = {
      id: completion.id,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
      choices,
      ...extra,
    };
    response.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  const delta = (value: Record<string, unknown>): void =>
    chunk([{ index: 0, delta: value, finish_reason: null }]);

  delta({ role: 'assistant', content: '' });
  // Several small pieces, so clients really assemble the text from deltas.
  for (const piece of (completion.content ?? '').match(/\S+\s*|\s+/g) ?? []) delta({ content: piece });
  completion.toolCalls.forEach((call, index) => {
    delta({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    const middle = Math.ceil(call.arguments.length / 2);
    for (const part of [call.arguments.slice(0, middle), call.arguments.slice(middle)]) {
      if (part !== '') delta({ tool_calls: [{ index, function: { arguments: part } }] });
    }
  });
  chunk([{ index: 0, delta: {}, finish_reason: finishReason(completion) }]);
  if (includeUsage) chunk([], { usage: usageOf(completion) });
  response.end('data: [DONE]\n\n');
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
