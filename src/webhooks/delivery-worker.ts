import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { deliveryTargetOf } from '../domain/delivery-target.ts';
import type { DeliveryAttempt, DeliveryOutcome, OutboxMessage, OutboxStore } from '../store/store.ts';
import { validateHeaderSafe } from './payloads.ts';
import type { RetrySchedule } from './retry-schedule.ts';
import { parseRetryAfterMs } from '../domain/retry-after.ts';
import { retryDelayMs } from './retry-schedule.ts';
import { sendWebhook } from './send-webhook.ts';
import type { SendResult } from './send-webhook.ts';
import { createWebhookSigner } from './signer.ts';
import { createGuardedAgent } from './target-guard.ts';

/** The part of a pino logger the worker uses. Headers are never passed to it: they may hold credentials. */
export interface DeliveryLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface DeliveryWorkerOptions {
  readonly store: OutboxStore;
  /** `CREWD_WEBHOOK_SECRET`; without it webhooks go unsigned. */
  readonly secret?: string | undefined;
  readonly allowPrivate: boolean;
  readonly schedule: RetrySchedule;
  readonly clock: () => Date;
  /** Bounds each attempt; 15 s unless given. */
  readonly timeoutMs?: number;
  /** How often due messages are looked for when nothing wakes the worker; 1 s unless given. */
  readonly pollIntervalMs?: number;
  /** Attempts in flight at once (each to a different execution and URL); 64 unless given. */
  readonly concurrency?: number;
  /**
   * Attempts in flight at once to one target (scheme, host and port); 16 unless given. A receiver that answers
   * slowly holds at most these, and the other slots keep serving everyone else.
   */
  readonly perTargetConcurrency?: number;
  /** [0, 1), for the retry jitter; `Math.random` unless given. */
  readonly random?: () => number;
  /** Name resolution for the target guard; `dns.lookup` unless given. */
  readonly lookup?: LookupFunction;
  readonly logger?: DeliveryLogger;
  /** Called after every recorded attempt (metrics). */
  readonly onAttempt?: (message: OutboxMessage, attempt: DeliveryAttempt, outcome: DeliveryOutcome) => void;
  readonly onDelivered?: (message: OutboxMessage, attempt: DeliveryAttempt) => void;
  /** The message will not be tried again: 410, retries spent, or a request that can never be sent. */
  readonly onFailed?: (message: OutboxMessage, attempt: DeliveryAttempt) => void;
}

export interface DeliveryWorker {
  start(): void;
  /**
   * Stops looking for messages and ends the attempts in flight at once. An attempt ended so is not recorded: its
   * message stays pending and is sent again (by this process after a restart, or another) once its claim lapses.
   */
  stop(): Promise<void>;
  /** Looks for due messages now; called right after a commit that queued some. */
  wake(): void;
}

// A claimed message stays ours this much longer than an attempt can take, so no one else sends it meanwhile.
const leaseMarginMs = 5_000;

/**
 * Delivers the outbox at least once. Messages are claimed from the store (only the oldest pending one per
 * execution and URL, so each receiver sees an execution's messages in order), sent through the target guard, and
 * every attempt is recorded with what happens next. A restarted worker picks up whatever is still pending.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const concurrency = Math.max(1, options.concurrency ?? 64);
  const perTarget = Math.max(1, options.perTargetConcurrency ?? 16);
  const random = options.random ?? Math.random;
  const sign = createWebhookSigner(options.secret);
  const inFlight = new Map<string, Promise<void>>();
  const busyTargets = new Map<string, number>();
  let stopping = new AbortController();
  // Created with the first message to send (loading undici then), closed on stop.
  let agent: Promise<Agent> | undefined;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let pollAgain = false;

  function schedule(delayMs: number): void {
    clearTimeout(timer);
    if (!running) return;
    timer = setTimeout(poll, delayMs);
    timer.unref();
  }

  /**
   * Attempts that end in the same turn of the event loop share one claim: a claim scans the pending messages, so
   * one per finished attempt would cost more as the backlog grows.
   */
  let pollQueued = false;
  function pollAfterCompletions(): void {
    if (pollQueued) return;
    pollQueued = true;
    setImmediate(() => {
      pollQueued = false;
      poll();
    });
  }

  function poll(): void {
    if (!running) return;
    if (polling !== undefined) {
      pollAgain = true;
      return;
    }
    polling = claimAndLaunch()
      .catch((error: unknown) => options.logger?.warn({ err: error }, 'webhook delivery loop failed'))
      .finally(() => {
        polling = undefined;
        schedule(pollAgain ? 0 : pollIntervalMs);
        pollAgain = false;
      });
  }

  async function claimAndLaunch(): Promise<void> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return;
    let messages: readonly OutboxMessage[];
    try {
      messages = await options.store.claimDueMessages(options.clock(), free, timeoutMs + leaseMarginMs, {
        perTarget,
        busy: busyTargets,
      });
    } catch (error) {
      options.logger?.warn({ err: error }, 'could not read the webhook outbox');
      return;
    }
    if (messages.length === 0 || !running) return;
    agent ??= createGuardedAgent({
      allowPrivate: options.allowPrivate,
      connectTimeoutMs: timeoutMs,
      ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    });
    const dispatcher = await agent;
    let launched = 0;
    for (const message of messages) {
      if (!running || inFlight.has(message.id)) continue;
      launched += 1;
      const target = deliveryTargetOf(message.url);
      busyTargets.set(target, (busyTargets.get(target) ?? 0) + 1);
      const attempt = deliver(dispatcher, message, stopping.signal)
        .catch((error: unknown) => {
          // Unrecorded: the lease runs out and the message is tried again.
          options.logger?.warn(
            { err: error, messageId: message.id },
            'a webhook attempt failed unexpectedly',
          );
        })
        .finally(() => {
          inFlight.delete(message.id);
          const left = (busyTargets.get(target) ?? 1) - 1;
          if (left <= 0) busyTargets.delete(target);
          else busyTargets.set(target, left);
          // The next message to the same receiver may be claimable now.
          pollAfterCompletions();
        });
      inFlight.set(message.id, attempt);
    }
    // A full batch suggests more are due.
    if (launched === free) pollAgain = true;
  }

  async function deliver(dispatcher: Agent, message: OutboxMessage, stopped: AbortSignal): Promise<void> {
    const attemptNumber = message.attempts + 1;
    const at = options.clock();
    const problem = unsendable(message);
    const result: SendResult =
      problem === null
        ? await send(dispatcher, message, at, stopped)
        : { statusCode: null, error: problem, retryAfter: undefined };
    // Ended by stop(): the receiver's answer is unknown, so the message is left to be sent again.
    if (stopped.aborted) return;
    const finished = options.clock();
    const attempt: DeliveryAttempt = {
      messageId: message.id,
      attempt: attemptNumber,
      at,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: Math.max(0, finished.getTime() - at.getTime()),
    };
    const outcome =
      problem === null ? decide(result, attemptNumber, finished) : ({ kind: 'failed' } as const);
    try {
      await options.store.recordDelivery(attempt, outcome);
    } catch (error) {
      // The lease runs out and the message is tried again: at least once, never lost.
      options.logger?.warn({ err: error, messageId: message.id }, 'could not record a webhook attempt');
      return;
    }
    if (outcome.kind !== 'delivered') {
      options.logger?.warn(
        {
          messageId: message.id,
          executionId: message.executionId,
          kind: message.kind,
          target: originOf(message.url),
          attempt: attemptNumber,
          statusCode: attempt.statusCode,
          error: attempt.error,
          next: outcome.kind === 'retry' ? outcome.at.toISOString() : null,
        },
        outcome.kind === 'retry' ? 'webhook attempt failed; will retry' : 'webhook delivery failed',
      );
    }
    notify(message, attempt, outcome);
  }

  function send(
    dispatcher: Agent,
    message: OutboxMessage,
    at: Date,
    signal: AbortSignal,
  ): Promise<SendResult> {
    const body = JSON.stringify(message.payload);
    const headers = {
      ...message.headers,
      'content-type': 'application/json',
      'user-agent': 'crewd-webhooks',
      ...sign(message.id, at, body),
    };
    return sendWebhook(dispatcher, { url: message.url, headers, body, timeoutMs, signal });
  }

  function decide(result: SendResult, attemptNumber: number, now: Date): DeliveryOutcome {
    const status = result.statusCode;
    if (status !== null && status >= 200 && status < 300) return { kind: 'delivered' };
    if (status === 410) return { kind: 'failed' };
    const delay = retryDelayMs(
      options.schedule,
      attemptNumber,
      random,
      parseRetryAfterMs(result.retryAfter, now.getTime()),
    );
    return delay === null ? { kind: 'failed' } : { kind: 'retry', at: new Date(now.getTime() + delay) };
  }

  function notify(message: OutboxMessage, attempt: DeliveryAttempt, outcome: DeliveryOutcome): void {
    try {
      options.onAttempt?.(message, attempt, outcome);
      if (outcome.kind === 'delivered') options.onDelivered?.(message, attempt);
      if (outcome.kind === 'failed') options.onFailed?.(message, attempt);
    } catch (error) {
      options.logger?.warn({ err: error }, 'a webhook delivery hook failed');
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      stopping = new AbortController();
      poll();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await polling;
      stopping.abort();
      await Promise.allSettled(inFlight.values());
      const closing = agent;
      agent = undefined;
      await (await closing)?.close();
    },
    wake() {
      poll();
    },
  };
}

/** A message that can never be sent as stored: not an http(s) URL, or a header value that is not safe. */
function unsendable(message: OutboxMessage): string | null {
  let url: URL;
  try {
    url = new URL(message.url);
  } catch {
    return 'URL is not an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'URL is not an absolute http(s) URL';
  try {
    for (const [name, value] of Object.entries(message.headers)) validateHeaderSafe(`header ${name}`, value);
  } catch {
    return 'request headers are not valid';
  }
  return null;
}

/** Only scheme, host and port: a URL's path or query may carry a receiver's secret. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}
