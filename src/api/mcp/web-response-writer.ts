import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** The MCP SDK's web-standard transport takes a web `Request`: the method, headers and URL of Node's request. */
export function toWebRequest(method: string, url: string, headers: IncomingHttpHeaders): Request {
  const webHeaders = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') webHeaders.set(name, value);
    else if (Array.isArray(value)) for (const each of value) webHeaders.append(name, each);
  }
  return new Request(url, { method, headers: webHeaders });
}

/**
 * Writes a web `Response` (what the MCP SDK's transport answers) to Node's response. The headers wait for the body's
 * first chunk, for at most `headerDelayMs`, and a chunk is held until the turn of the event loop ends: a tool call
 * that ends at once leaves in one write (headers, its answer and the end of the body) where writing the headers
 * first took three, each waking the client; a long wait still gets its headers early, so a client's header timeout
 * does not run out while the tool waits.
 */
export async function writeWebResponse(
  response: Response,
  raw: ServerResponse,
  headerDelayMs: number,
): Promise<void> {
  raw.statusCode = response.status;
  response.headers.forEach((value, name) => raw.setHeader(name, value));
  if (response.body === null) {
    raw.end();
    return;
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const early = setTimeout(() => {
    if (!raw.headersSent && !raw.destroyed) raw.flushHeaders();
  }, headerDelayMs);
  // A client that went away ends the read: the transport's stream has nobody to write to.
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  raw.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw.cork();
      raw.write(value);
      process.nextTick(() => raw.uncork());
    }
  } finally {
    clearTimeout(early);
    raw.off('close', cancel);
    raw.end();
  }
}
