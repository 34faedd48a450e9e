import type { FastifyInstance } from 'fastify';
import type { Dispatcher } from '../service/dispatcher.ts';
import type { ExecutionClaims } from '../service/execution-claims.ts';
import type { ExecutionRunner } from '../service/execution-runner.ts';
import type { CoordinationFeed, ChangeListener } from '../store/coordination-feed.ts';
import type { DeliveryWorker } from '../webhooks/delivery-worker.ts';
import type { Lifecycle } from './lifecycle.ts';

/**
 * The change feed, and with it this process's liveness lock: from its start other processes know this one is
 * alive, so requests may lease work to it. Its stop hands back the leases it still holds; the feed itself is
 * closed by the store, last, after the store's own writes (see Store.close).
 */
export function feedPart(
  feed: CoordinationFeed,
  listener: ChangeListener,
  leases: { releaseLeases(): Promise<void>; onReleaseFailed: (error: unknown) => void },
): Lifecycle {
  return {
    name: 'the change feed',
    start: () => feed.start(listener),
    stop: () => leases.releaseLeases().catch(leases.onReleaseFailed),
  };
}

/**
 * The HTTP listener. Stopping it refuses new connections at once; open requests share the grace period with
 * running tasks, and a client still sending after it (or never finishing its request) has its connection closed,
 * so it cannot hold the shutdown.
 */
export function listenerPart(
  server: FastifyInstance,
  options: { readonly port: number; readonly host: string; readonly graceMs: number },
): Lifecycle {
  let closed: Promise<void> | undefined;
  const stopTakingWork = (): void => {
    if (closed !== undefined) return;
    const forceClose = setTimeout(() => server.server.closeAllConnections(), options.graceMs);
    closed = server.close().finally(() => clearTimeout(forceClose));
  };
  return {
    name: 'the HTTP listener',
    async start() {
      try {
        await server.listen({ port: options.port, host: options.host });
      } catch (error) {
        await server.close();
        throw error;
      }
    },
    stopTakingWork,
    async stop() {
      stopTakingWork();
      await closed;
    },
  };
}

/** Delivery of the webhook outbox. */
export function webhookWorkerPart(worker: DeliveryWorker): Lifecycle {
  return {
    name: 'the webhook worker',
    start() {
      worker.start();
      return Promise.resolve();
    },
    stop: () => worker.stop(),
  };
}

/**
 * Running executions: claims take work for this process and the dispatcher runs it. Stopping lets running tasks
 * finish within the grace period, then stops the rest; they run again from their last step in the next process.
 */
export function executionsPart(parts: {
  readonly claims: ExecutionClaims;
  readonly runner: ExecutionRunner;
  readonly dispatcher: Dispatcher;
  readonly graceMs: number;
}): Lifecycle {
  const { claims, runner, dispatcher } = parts;
  const stopTakingWork = (): void => {
    claims.stop();
    runner.beginShutdown();
  };
  return {
    name: 'the executions',
    start: () => claims.start(),
    stopTakingWork,
    async stop() {
      stopTakingWork();
      await dispatcher.drain(parts.graceMs);
      runner.stopAll('shutdown');
      await dispatcher.drain(1000);
    },
  };
}
