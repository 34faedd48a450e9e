import type { Dispatcher } from 'undici';
import { TargetRefusedError } from './target-guard.ts';
import { errorChain, errorCode } from '../domain/error-chain.ts';

/** At most this much of a receiver's answer is read; its content is never used. */
export const maxResponseBytes = 64 * 1024;

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Bounds the whole attempt: connecting, sending and reading the answer. */
  readonly timeoutMs: number;
  /** Ends the attempt early (shutting down). */
  readonly signal?: AbortSignal;
}

export interface SendResult {
  /** The receiver's status code, or null when no answer came. */
  readonly statusCode: number | null;
  /** Why the attempt did not succeed, in our words (never the receiver's body); null on 2xx. */
  readonly error: string | null;
  /** The receiver's `Retry-After` header, when it sent one. */
  readonly retryAfter: string | undefined;
}

class AttemptTimeout extends Error {}

/**
 * POSTs one webhook through `dispatcher` and reports what happened; it never throws. Redirects are not followed:
 * a dispatcher has no redirect handling unless an interceptor adds it, so a 3xx is a failed attempt.
 */
export async function sendWebhook(dispatcher: Dispatcher, webhook: WebhookRequest): Promise<SendResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout()), webhook.timeoutMs);
  const stop = (): void => controller.abort(webhook.signal?.reason);
  if (webhook.signal?.aborted === true) stop();
  webhook.signal?.addEventListener('abort', stop, { once: true });
  try {
    const url = new URL(webhook.url);
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: webhook.headers,
      body: webhook.body,
      signal: controller.signal,
      headersTimeout: webhook.timeoutMs,
      bodyTimeout: webhook.timeoutMs,
    });
    const retryAfter = firstHeader(response.headers['retry-after']);
    // The answer is read only so the connection can be reused; a larger or slower one is cut off.
    await response.body.dump({ limit: maxResponseBytes, signal: controller.signal }).catch(() => undefined);
    return { statusCode: response.statusCode, error: statusError(response.statusCode), retryAfter };
  } catch (error) {
    return { statusCode: null, error: describeFailure(error, webhook.timeoutMs), retryAfter: undefined };
  } finally {
    clearTimeout(timer);
    webhook.signal?.removeEventListener('abort', stop);
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function statusError(statusCode: number): string | null {
  if (statusCode >= 200 && statusCode < 300) return null;
  if (statusCode >= 300 && statusCode < 400) return `redirect not followed (HTTP ${statusCode})`;
  if (statusCode === 410) return 'receiver answered HTTP 410 Gone; no more attempts';
  return `receiver answered HTTP ${statusCode}`;
}

const messagesByCode: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  EPIPE: 'connection reset by the receiver',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  ENOTFOUND: 'host name could not be resolved',
  EAI_AGAIN: 'host name could not be resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_INVALID_ARG: 'request could not be built',
};

const timeoutCodes = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** Turns a thrown value into a short description without addresses or receiver text. */
function describeFailure(error: unknown, timeoutMs: number): string {
  const chain = errorChain(error);
  if (chain.some((item) => item instanceof TargetRefusedError)) return new TargetRefusedError().message;
  if (chain.some((item) => item instanceof AttemptTimeout)) return `timed out after ${timeoutMs} ms`;
  for (const item of chain) {
    const code = errorCode(item);
    if (code === undefined) continue;
    if (timeoutCodes.has(code)) return `timed out after ${timeoutMs} ms`;
    const known = messagesByCode[code];
    if (known !== undefined) return known;
    if (code.startsWith('ERR_TLS') || code.includes('CERT')) return 'TLS handshake failed';
  }
  return 'network error';
}
