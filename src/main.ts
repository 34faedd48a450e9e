import { randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { buildServer } from './api/build-server.ts';
import { UnavailableLog } from './api/unavailable-log.ts';
import { StateCounts } from './observability/state-counts.ts';
import type { ServeConfig } from './config.ts';
import type { Execution } from './domain/execution.ts';
import type { RateLimiter } from './engine/rate-limiter.ts';
import type { Timers } from './engine/timers.ts';
import { CoordinationMetrics } from './observability/coordination-metrics.ts';
import { traceDeliveryAttempt } from './observability/delivery-trace.ts';
import { Metrics } from './observability/metrics.ts';
import { openTracing } from './observability/open-tracing.ts';
import { countingStoreErrors } from './observability/store-error-counter.ts';
import { DurableExecutionService } from './service/durable-execution-service.ts';
import { createLocalDispatcher } from './service/dispatcher.ts';
import { followOtherProcesses } from './service/cross-process-changes.ts';
import { EventHub } from './service/event-hub.ts';
import { ExecutionClaims } from './service/execution-claims.ts';
import { ExecutionRunner } from './service/execution-runner.ts';
import { Notifications } from './service/notifications.ts';
import { createTokenService, type TokenService } from './service/token-service.ts';
import { openStore } from './open-store.ts';
import { openCrewRuntime } from './runtime/crew-runtime.ts';
import { ProcessLifecycle } from './runtime/process-lifecycle.ts';
import { executionsPart, feedPart, listenerPart, webhookWorkerPart } from './runtime/server-parts.ts';
import { newProcessId } from './store/process-identity.ts';
import { scheduleRetention, type RetentionSchedule } from './service/retention.ts';
import { ScheduleService } from './service/schedule-service.ts';
import { Scheduler } from './service/scheduler.ts';
import { TriggerService } from './service/trigger-service.ts';
import type { ExecutionChange, NewExecutionEvent, Store } from './store/store.ts';
import { isStoreUnavailable } from './store/store-unavailable.ts';
import { crewdStatePaths, removeExecutionWorkspace, workspaceRoot } from './workspace/execution-workspace.ts';
import { WorkspaceFiles } from './workspace/workspace-files.ts';
import { createDeliveryWorker } from './webhooks/delivery-worker.ts';
import { parseRetrySchedule } from './webhooks/retry-schedule.ts';

export interface RunningServer {
  /** The base URL clients use. */
  readonly url: string;
  /** An organization token to show the person who started the server, when one was made at start. */
  readonly startupToken: string | undefined;
  /** Stops taking work, lets model calls finish up to the grace period, and closes everything. */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger;
  /** Receives the crew loader's warnings as lines for a person; by default they go to the logger. */
  readonly warn?: (message: string) => void;
  /** Receives every entry of every execution's event log as it is committed in this process (terminal output). */
  readonly onExecutionEvent?: (executionId: string, event: NewExecutionEvent, at: Date) => void;
  /** The wall clock; `new Date()` unless given (tests move it instead of waiting). */
  readonly clock?: () => Date;
  /** The max_rpm limiter; one on real time unless given. */
  readonly rateLimiter?: RateLimiter;
  /** Times agents' max_execution_time; real timers unless given. */
  readonly timers?: Timers;
  /** How often schedules are looked at, in real time (default 1 s); the clock decides what is due. */
  readonly schedulePollMs?: number;
}

/**
 * The composition root: the one place that picks concrete adapters and wires them together. The process's parts
 * start in this order and stop in reverse (see ProcessLifecycle): the crew with its tools, tracing, the store, the
 * change feed, the HTTP listener, the webhook worker, the executions, retention.
 */
export async function startServer(config: ServeConfig, options: StartOptions): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: options.env.LOG_LEVEL ?? 'info' });
  const clock = options.clock ?? ((): Date => new Date());
  const warn = options.warn ?? ((message: string) => logger.warn(message));
  const lifecycle = new ProcessLifecycle({
    onStopError: (part, error) => logger.warn({ err: error, part }, 'could not stop cleanly'),
  });
  try {
    return await wire(lifecycle, config, { ...options, logger, clock, warn });
  } catch (error) {
    return lifecycle.fail(error);
  }
}

interface WiringOptions extends StartOptions {
  readonly logger: Logger;
  readonly clock: () => Date;
  readonly warn: (message: string) => void;
}

async function wire(
  lifecycle: ProcessLifecycle,
  config: ServeConfig,
  options: WiringOptions,
): Promise<RunningServer> {
  const { logger, clock } = options;
  const workspace = workspaceRoot(config.database);
  const { crew, models, tools } = await lifecycle.open(
    'the crew',
    () =>
      openCrewRuntime({
        crewDir: config.crewDir,
        ...(config.crewName === undefined ? {} : { crewName: config.crewName }),
        env: options.env,
        warn: options.warn,
        allowPartial: config.allowPartial ?? false,
        defaultModel: config.defaultModel,
        tools: { workspaceRoot: workspace, crewdState: crewdStatePaths(config.database), logger },
        check: true,
      }),
    (runtime) => runtime.close(),
  );
  const tracing = await lifecycle.open(
    'tracing',
    () => openTracing(options.env),
    async (opened) => {
      await opened
        ?.shutdown()
        .catch((error: unknown) => logger.warn({ err: error }, 'could not send the last traces'));
    },
  );
  const outputFiles = WorkspaceFiles.underRoot(workspace);
  const schedule = parseRetrySchedule(config.webhookRetrySchedule);
  // This process's name on the leases it holds, its liveness lock and its notices.
  const processId = newProcessId();
  const stateCounts = new StateCounts({
    count: (states) => store.countByState(states),
    now: () => clock().getTime(),
  });
  const metrics = new Metrics(
    { countByState: stateCounts.read, countFailedDeliveries: () => store.countFailedMessages() },
    { processMetrics: true },
  );
  const store = await lifecycle.open(
    'the store',
    async () => {
      const opened = countingStoreErrors(
        await openStore(config.database, {
          processId,
          onError: (error) => logger.error({ err: error }, 'store background work failed'),
        }),
        (kind) => metrics.observeStoreError(kind),
      );
      try {
        await opened.migrate();
      } catch (error) {
        await opened.close();
        throw error;
      }
      return opened;
    },
    (opened) => opened.close(),
  );
  // Work outside requests (running executions, recovery, webhooks) waits out an outage; it says so once in a while.
  const outageLog = new UnavailableLog(
    logger,
    () => clock().getTime(),
    'the database is unavailable; waiting for it to come back',
  );
  const quietDuringOutages = (work: string, error: unknown, message: string): void => {
    if (isStoreUnavailable(error)) outageLog.record(error, work);
    else logger.warn({ err: error }, message);
  };

  const tokens = createTokenService({ store, clock });
  if (config.orgToken !== undefined) {
    await tokens.register(config.orgToken, { kind: 'org', name: 'CREWD_ORG_TOKEN' });
  }
  const coordination = new CoordinationMetrics(metrics.registry, () => runner.running);
  const worker = createDeliveryWorker({
    store,
    secret: config.webhookSecret,
    allowPrivate: config.webhookAllowPrivate,
    schedule,
    clock,
    logger: {
      warn: (details, message) => {
        if (isStoreUnavailable(details.err)) outageLog.record(details.err, 'webhooks');
        else logger.warn(details, message);
      },
    },
    ...(tracing === undefined
      ? {}
      : {
          onAttempt: (message, attempt, outcome) => traceDeliveryAttempt(tracing, message, attempt, outcome),
        }),
  });
  const events = new EventHub();
  const onCommitted = (execution: Execution, change: ExecutionChange): void => {
    events.publish(execution, change);
    if ((change.outbox?.length ?? 0) > 0) worker.wake();
    for (const event of change.events ?? []) options.onExecutionEvent?.(execution.id, event, change.now);
  };
  const notifications = new Notifications(randomUUID, crew.name);
  const lease = { owner: processId, durationMs: config.executionLeaseMs };
  const runner = new ExecutionRunner({
    crew,
    store,
    models,
    tools,
    defaultModel: config.defaultModel,
    notifications,
    clock,
    observer: {
      onModelCall: (model, seconds, usage) => metrics.observeModelCall(model, seconds, usage),
      onTaskEnd: (seconds) => metrics.observeTask(seconds),
      onCommitted,
      onLeaseRenewalFailed: (error) =>
        quietDuringOutages('lease renewal', error, 'could not renew execution leases'),
      onStoreUnavailable: (error) => outageLog.record(error, 'executions'),
    },
    lease,
    limiter: options.rateLimiter,
    tracing,
    outputFiles,
    timers: options.timers,
  });
  const dispatcher = createLocalDispatcher({
    concurrency: config.concurrency,
    run: (id) => runner.run(id),
    onError: (id, error) => logger.error({ err: error, executionId: id }, 'execution run failed'),
    onRoom: () => claims.wake(),
  });
  const claims = new ExecutionClaims({
    store,
    dispatcher,
    clock,
    lease,
    scanMs: config.claimScanMs,
    onClaimed: (claimed) => {
      const taken = claimed.filter(
        (execution) => execution.takenFrom !== null && execution.takenFrom !== processId,
      );
      if (taken.length > 0)
        logger.info({ taken: taken.length }, 'continuing executions of a stopped process');
      coordination.observeTakeovers(taken.length);
    },
    onError: (error) => quietDuringOutages('claims', error, 'could not claim executions'),
  });
  const service = new DurableExecutionService({
    crew,
    store,
    runner,
    dispatcher,
    notifications,
    events,
    clock,
    newId: randomUUID,
    onCommitted,
    lease,
  });
  const schedules = new ScheduleService({
    store,
    executions: service,
    crew: crew.name,
    clock,
    newId: randomUUID,
  });
  const triggers = new TriggerService({ store, executions: service, crew: crew.name });
  const server = await buildServer({
    service,
    schedules,
    triggers,
    authenticate: (secret) => tokens.authenticate(secret),
    metrics,
    logger,
    rateLimitPerMinute: config.rateLimitPerMinute,
    ready: () => store.ping(),
    toolSources: () => tools.statuses(),
    connectionLimits: { connectionsPerAddress: config.connectionsPerAddress },
    clock,
    outputFiles,
  });

  // Before any request can lease work to this process: from here on, other processes know it is alive.
  await lifecycle.start(
    feedPart(
      store.feed,
      followOtherProcesses({
        events,
        runner,
        claims,
        clock,
        onNoticeLag: (seconds) => coordination.observeNoticeLag(seconds),
      }),
      {
        releaseLeases: () => runner.releaseLeases(),
        onReleaseFailed: (error) => logger.warn({ err: error }, 'could not release execution leases'),
      },
    ),
  );
  await lifecycle.start(
    listenerPart(server, { port: config.port, host: config.host, graceMs: config.shutdownGraceMs }),
  );
  // Only once listening, so a second start that fails never revokes the token a running server printed.
  const startupToken = config.orgToken === undefined ? await replaceStartupToken(tokens) : undefined;
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  await lifecycle.start(webhookWorkerPart(worker));
  await lifecycle.start(executionsPart({ claims, runner, dispatcher, graceMs: config.shutdownGraceMs }));
  await lifecycle.open(
    'retention',
    () =>
      Promise.resolve(
        startRetention(config, { store, clock, logger, forget: (id) => service.forgetDeleted(id) }),
      ),
    async (retention) => retention?.stop(),
  );
  await lifecycle.open(
    'the schedules',
    () =>
      Promise.resolve(
        startScheduler({ store, service, tokens, clock, logger, pollMs: options.schedulePollMs }),
      ),
    (scheduler) => scheduler.stop(),
  );
  lifecycle.running();

  return { url, startupToken, close: () => lifecycle.stop() };
}

/** With `CREWD_RETENTION`, deletes finished executions older than that now and then; none without it. */
function startRetention(
  config: ServeConfig,
  {
    store,
    clock,
    logger,
    forget,
  }: { store: Store; clock: () => Date; logger: Logger; forget: (id: string) => void },
): RetentionSchedule | undefined {
  const { retentionMs } = config;
  if (retentionMs === undefined) return undefined;
  const root = workspaceRoot(config.database);
  return scheduleRetention({
    store,
    onDeleted: (id) => {
      forget(id);
      return removeExecutionWorkspace(root, id);
    },
    retentionMs,
    clock,
    // Often enough that nothing stays much past its time, never more than hourly or less than each second.
    everyMs: Math.min(3_600_000, Math.max(1_000, retentionMs / 10)),
    onPass: (deleted) => {
      if (deleted > 0) logger.info({ deleted }, 'deleted finished executions past the retention period');
    },
    onError: (error) => logger.warn({ err: error }, 'could not delete old executions; trying again later'),
  });
}

/** Starts each schedule's ticks as they fall due, as every process does; the store keeps one execution a tick. */
function startScheduler(parts: {
  store: Store;
  service: DurableExecutionService;
  tokens: TokenService;
  clock: () => Date;
  logger: Logger;
  pollMs: number | undefined;
}): Scheduler {
  const { logger } = parts;
  const scheduler = new Scheduler({
    store: parts.store,
    executions: parts.service,
    crew: parts.service.crew.name,
    clock: parts.clock,
    tokenActive: async (tokenId) =>
      (await parts.tokens.list()).some((token) => token.id === tokenId && token.revokedAt === null),
    onTick: (outcome) => {
      const fields = { schedule: outcome.schedule.id, due_at: outcome.dueAt.toISOString() };
      if (outcome.kind === 'started' && outcome.late) {
        logger.warn(
          { ...fields, kickoff_id: outcome.kickoffId },
          'started a scheduled execution late: the tick fell due while no process was running',
        );
      } else if (outcome.kind === 'started') {
        logger.info({ ...fields, kickoff_id: outcome.kickoffId }, 'started a scheduled execution');
      } else if (outcome.kind === 'refused') {
        logger.warn({ ...fields, err: outcome.error }, 'the crew refused a scheduled execution');
      }
    },
    onError: (error) => logger.warn({ err: error }, 'could not start scheduled executions; trying again'),
    ...(parts.pollMs === undefined ? {} : { pollMs: parts.pollMs }),
  });
  scheduler.start();
  return scheduler;
}

/**
 * Without `CREWD_ORG_TOKEN`, each start makes a fresh organization token to print and revokes the one printed at
 * the previous start, so a newcomer always has exactly one that works.
 */
async function replaceStartupToken(tokens: TokenService): Promise<string> {
  for (const token of await tokens.list()) {
    if (token.name === startupTokenName && token.revokedAt === null) await tokens.revoke(token.id);
  }
  const created = await tokens.create({ kind: 'org', name: startupTokenName });
  return created.secret;
}

const startupTokenName = 'printed at start';
