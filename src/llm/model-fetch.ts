import type { Agent } from 'undici';
import { ModelCallError } from '../domain/errors.ts';

/** How long an idle connection to a model server stays open for the next call. */
const keepAliveMs = 30_000;

/**
 * The largest model response body crewd reads: about four times the longest answer any model writes today (128k
 * tokens), so only a runaway server (a self-hosted one without `max_tokens`) reaches it. Everything crewd keeps of
 * an answer (its steps, events, task output, webhooks, `/status`) is bounded by it.
 */
export const modelResponseLimitBytes = 2 * 1024 * 1024;

export interface ModelFetchOptions {
  /** Bodies past this many bytes are not read further and fail the call; `modelResponseLimitBytes` by default. */
  readonly maxResponseBytes?: number;
}

/**
 * The `fetch` that provider clients use for model calls: undici's `request`, with the whole answer read before it is
 * handed over as a `Response`. Node's global `fetch` wraps both bodies in web streams, which here cost as much CPU as
 * the rest of a model call. Only what provider clients send is taken this way (a URL, a string or byte body);
 * anything else goes to the global `fetch`, its response held to the same limit. Redirects are not followed: model
 * APIs answer where they are asked. undici is loaded with the first call, so a server whose crew never calls a
 * model does not load it at start-up.
 */
export function createModelFetch(options: ModelFetchOptions = {}): typeof globalThis.fetch {
  const maxBytes = options.maxResponseBytes ?? modelResponseLimitBytes;
  let dispatcher: Promise<Agent> | undefined;
  return async (input, init) => {
    const body = init?.body;
    const simpleBody =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (input instanceof Request || !simpleBody) {
      const response = await globalThis.fetch(input, init);
      if (response.body === null) return response;
      const bytes = await readBounded(
        webChunks(response.body),
        response.headers.get('content-length') ?? undefined,
        maxBytes,
      );
      return new Response(bytes, { status: response.status, headers: response.headers });
    }
    dispatcher ??= import('undici').then(({ Agent }) => new Agent({ keepAliveTimeout: keepAliveMs }));
    const url = new URL(input);
    const response = await (
      await dispatcher
    ).request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: init?.method ?? 'GET',
      headers: headerRecord(init?.headers),
      body: body ?? null,
      signal: init?.signal ?? null,
    });
    const bytes = await readBounded(response.body, response.headers['content-length'], maxBytes);
    return new Response(hasNoBody(response.statusCode) ? null : bytes, {
      status: response.statusCode,
      headers: responseHeaders(response.headers),
    });
  };
}

/**
 * The whole body, or a `ModelCallError` as soon as it passes `maxBytes` (announced or read): the rest is never
 * read, so one runaway answer costs at most `maxBytes` of memory. Not retryable: the same request would get the
 * same answer. The message names the limit and none of the provider's text.
 */
async function readBounded(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  contentLength: string | string[] | undefined,
  maxBytes: number,
): Promise<Uint8Array> {
  const announced = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (Number.isFinite(announced) && announced > maxBytes) {
    body.destroy();
    throw tooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/** A web stream's chunks, as `readBounded` takes them: `destroy` cancels the stream. */
function webChunks(stream: ReadableStream<Uint8Array>): AsyncIterable<Buffer> & { destroy(): void } {
  const reader = stream.getReader();
  return {
    destroy: () => void reader.cancel().catch(() => undefined),
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    },
  };
}

function tooLarge(maxBytes: number): ModelCallError {
  return new ModelCallError(
    `the model's response is larger than ${byteSize(maxBytes)}, the most crewd reads of one model response; ` +
      'it was not read further (limit the answer with max_tokens)',
    { retryable: false },
  );
}

/** `2 MiB`, `512 KiB`, or bytes: how the limits are written in the README. */
function byteSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([name, item]);
  }
  return pairs;
}

/** Statuses a `Response` may not carry a body with. */
function hasNoBody(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}
