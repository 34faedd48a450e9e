import type { Dispatcher } from 'undici';
import { createGuardedAgent, TargetRefusedError } from '../../webhooks/target-guard.ts';
import { ToolFailure } from './tool-failure.ts';
import { errorChain, errorCode } from '../../domain/error-chain.ts';

/** One request a network tool makes. */
export interface WebRequest {
  readonly url: URL;
  /** How the target is named in messages: the page's URL, or `Serper` for an endpoint the operator chose. */
  readonly label: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Redirects followed; each hop goes through the same guard. 0 makes a redirect a failure. */
  readonly maxRedirects: number;
  /** An answer over the size cap is cut (a page) or refused (an answer that must be whole). */
  readonly overSize: 'cut' | 'refuse';
}

export interface WebLimits {
  readonly allowPrivateTargets: boolean;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

export interface WebAnswer {
  readonly status: number;
  /** Where the answer came from, after redirects. */
  readonly url: URL;
  readonly contentType: string | undefined;
  readonly body: Buffer;
  readonly truncated: boolean;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

class OverSize extends Error {}

/**
 * Sends a request through the webhook target guard, within a time cap (connecting, redirects and reading included)
 * and a size cap on the answer. Failures come back as messages the model can read, without system detail.
 * `dispatcher` is for tests; otherwise each call gets its own guarded agent, closed at the end: tool calls are too
 * rare for connection reuse to matter, and nothing is left open between executions.
 */
export async function fetchWeb(
  request: WebRequest,
  limits: WebLimits,
  signal: AbortSignal,
  dispatcher?: Dispatcher,
): Promise<WebAnswer> {
  const agent =
    dispatcher ??
    (await createGuardedAgent({
      allowPrivate: limits.allowPrivateTargets,
      connectTimeoutMs: limits.timeoutMs,
    }));
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const reached = { url: request.url };
  try {
    return await follow(agent, request, limits, combined, reached);
  } catch (error) {
    signal.throwIfAborted();
    const label =
      reached.url === request.url ? request.label : `${request.label} (redirected to ${reached.url.href})`;
    throw describeFailure(error, label, limits, timeout.aborted);
  } finally {
    if (dispatcher === undefined) await agent.destroy().catch(() => undefined);
  }
}

async function follow(
  agent: Dispatcher,
  request: WebRequest,
  limits: WebLimits,
  signal: AbortSignal,
  reached: { url: URL },
): Promise<WebAnswer> {
  let url = request.url;
  let headers = { ...request.headers };
  for (let hop = 0; ; hop += 1) {
    assertWebScheme(url, request.label);
    const response = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers,
      body: request.body ?? null,
      signal,
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
    });
    const location = firstHeader(response.headers['location']);
    if (!redirectStatuses.has(response.statusCode) || location === undefined) {
      const { body, truncated } = await readCapped(
        response.body,
        limits.maxBytes,
        request.overSize === 'cut',
      );
      const contentType = firstHeader(response.headers['content-type']);
      return { status: response.statusCode, url, contentType, body, truncated };
    }
    await response.body.dump().catch(() => undefined);
    if (hop >= request.maxRedirects) {
      throw new ToolFailure(
        request.maxRedirects === 0
          ? `${request.label} answered with a redirect (HTTP ${response.statusCode}), which is not followed.`
          : `${request.label} redirected more than ${request.maxRedirects} times.`,
      );
    }
    const next = new URL(location, url);
    // Cookies and credentials were meant for the first site, not wherever it sends us.
    if (next.origin !== url.origin) headers = withoutCredentials(headers);
    url = next;
    reached.url = next;
  }
}

function assertWebScheme(url: URL, label: string): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolFailure(
      `Refused to fetch ${label}: only http and https URLs can be fetched (got ${url.protocol}).`,
    );
  }
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const sensitive = /^(cookie|authorization|proxy-authorization)$|api-?key|secret|token/i;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !sensitive.test(name)));
}

async function readCapped(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  cut: boolean,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = maxBytes - length;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      body.destroy();
      if (!cut) throw new OverSize();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    length += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const messagesByCode: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was reset',
  UND_ERR_SOCKET: 'the connection was closed',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

const timeoutCodes = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** The model reads what went wrong in our words: never addresses, system messages or the far side's text. */
function describeFailure(error: unknown, label: string, limits: WebLimits, timedOut: boolean): ToolFailure {
  if (error instanceof ToolFailure) return error;
  const chain = errorChain(error);
  if (chain.some((item) => item instanceof TargetRefusedError)) {
    return new ToolFailure(
      `Refused to fetch ${label}: its address is loopback, private or otherwise not public, and tools may only reach public addresses. An operator can allow private addresses with CREWD_TOOLS_ALLOW_PRIVATE=1.`,
    );
  }
  if (chain.some((item) => item instanceof OverSize)) {
    return new ToolFailure(
      `${label} sent an answer larger than ${limits.maxBytes} bytes, which is more than tools read.`,
    );
  }
  const codes = chain.map(errorCode);
  if (timedOut || codes.some((code) => code !== undefined && timeoutCodes.has(code))) {
    return new ToolFailure(`${label} did not answer within ${limits.timeoutMs} ms.`);
  }
  for (const code of codes) {
    const known = code === undefined ? undefined : messagesByCode[code];
    if (known !== undefined) return new ToolFailure(`Could not reach ${label}: ${known}.`);
    if (code?.startsWith('ERR_TLS') === true || code?.includes('CERT') === true) {
      return new ToolFailure(`Could not reach ${label}: the TLS handshake failed.`);
    }
  }
  return new ToolFailure(`Could not reach ${label}: a network error occurred.`);
}
