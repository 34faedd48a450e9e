import type { Agent } from 'undici';

/** How long an idle connection to a model server stays open for the next call. */
const keepAliveMs = 30_000;

/**
 * The `fetch` that provider clients use for model calls: undici's `request`, with the whole answer read before it is
 * handed over as a `Response`. Node's global `fetch` wraps both bodies in web streams, which here cost as much CPU as
 * the rest of a model call. Only what provider clients send is taken this way (a URL, a string or byte body);
 * anything else goes to the global `fetch`. Redirects are not followed: model APIs answer where they are asked.
 * undici is loaded with the first call, so a server whose crew never calls a model does not load it at start-up.
 */
export function createModelFetch(): typeof globalThis.fetch {
  let dispatcher: Promise<Agent> | undefined;
  return async (input, init) => {
    const body = init?.body;
    const simpleBody =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (input instanceof Request || !simpleBody) return globalThis.fetch(input, init);
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
    const bytes = await response.body.arrayBuffer();
    return new Response(hasNoBody(response.statusCode) ? null : bytes, {
      status: response.statusCode,
      headers: responseHeaders(response.headers),
    });
  };
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
