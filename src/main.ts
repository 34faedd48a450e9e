import path from 'node:path';
import { createGenaiPriceTable } from './llm/genai-price-table.ts';
import type { PriceTable } from './llm/price-table.ts';
import { timeOrderedId } from './system/time-ordered-id.ts';
import { pino, type Logger } from 'pino';
import { buildServer } from './api/build-server.ts';
import { UnavailableLog } from './api/unavailable-log.ts';
import { StateCounts } from './observability/state-counts.ts';
import type { ServeConfig, ServedCrewConfig } from './config.ts';
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
import { ReviewDeadlines } from './service/review-deadlines.ts';
import { ExecutionRunner } from './service/execution-runner.ts';
import { createTokenService, type TokenService } from './service/token-service.ts';
import { openStore } from './open-store.ts';
import { openCrewRuntime, type CrewRuntime } from './runtime/crew-runtime.ts';
import { servedCrews } from './runtime/served-crews.ts';
import { crewEnvironment, type CrewEnvironment } from './runtime/crew-environment.ts';
import type { ServedVersions } from './runtime/crew-versions.ts';
import { deployServedUnit } from './runtime/served-unit-versions.ts';
import type { FlowRuntime } from './flow/open-flow-runtime.ts';
import type { ServedCrew } from './api/routes/served-crews-route.ts';
import { EveryCrewAccess } from './service/every-crew-access.ts';
import { ProcessLifecycle } from './runtime/process-lifecycle.ts';
import { startModelThread } from './llm/model-thread.ts';
import { executionsPart, feedPart, listenerPart, webhookWorkerPart } from './runtime/server-parts.ts';
import { newProcessId } from './store/process-identity.ts';
import { scheduleRetention, type RetentionSchedule } from './service/retention.ts';
import { ScheduleService } from './service/schedule-service.ts';
import { Scheduler } from './service/scheduler.ts';
import { TriggerService } from './service/trigger-service.ts';
import type { ExecutionChange, NewExecutionEvent, Store } from './store/store.ts';
import { isStoreUnavailable } from './store/store-unavailable.ts';
import {
  crewdStatePaths,
  crewVersionsRoot,
  removeExecutionWorkspace,
  workspaceRoot,
} from './workspace/execution-workspace.ts';
import { WorkspaceFiles } from './workspace/workspace-files.ts';
import { createDeliveryWorker } from './webhooks/delivery-worker.ts';
import { parseRetrySchedule } from './webhooks/retry-schedule.ts';

export interface RunningServer {
  /** The base URL clients use. */
  readonly url: string;
  /** An organization token to show the person who started the server, when one was made at start. */
  readonly startupToken: string | undefined;
  /**
   * Keeps each crew's files as they are now as a version, served to new kickoffs when they changed, without a
   * restart: executions in flight keep theirs. Rejects, serving as before, when a crew no longer loads.
   */
  deployAgain(): Promise<
    readonly { readonly name: string; readonly version: number; readonly created: boolean }[]
  >;
  /** Stops taking work, lets model calls finish up to the grace period, and closes everything. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** The server's environment: its settings, tracing and log level (`crewd serve` puts the first crew's `.env` beneath). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The environment each crew's own `.env` is put beneath for its models and tools: the real one, without any
   * project's `.env`, so one crew's file never reaches another. `env` when absent.
   */
  readonly crewEnv?: Readonly<Record<string, string | undefined>>;
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
  /** Model prices for costs and budgets; the bundled table of `@pydantic/genai-prices` unless given. */
  readonly prices?: PriceTable;
}

/**
 * The composition root: the one place that picks concrete adapters and wires them together. The process's parts
 * start in this order and stop in reverse (see ProcessLifecycle): tracing, the store, the crews (each version kept
 * in the store) with their tools, the
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
  const crewConfigs = servedCrews(config);
  const tracing = await lifecycle.open(
    'tracing',
    () => openTracing(options.env),
    async (opened) => {
      await opened
        ?.shutdown()
        .catch((error: unknown) => logger.warn({ err: error }, 'could not send the last traces'));
    },
  );
  // Provider models make their calls on a thread of their own; closed after the executions that call them stop.
  const modelThread = await lifecycle.open(
    'the model thread',
    () => Promise.resolve(startModelThread()),
    (thread) => thread.close(),
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
  // Executions stored before crews had names belong to the crew a server of one served: the first.
  const firstCrew = crewConfigs[0]!.name;
  await store.assignCrewless(firstCrew);
  // A version written out under crewd's folder (`./.crewd` beside no database file) still reads its own files: that
  // folder gives way to what it holds of crewd's (the token file, the workspace).
  const stateAround = (crewDir: string): string[] =>
    crewdStatePaths(config.database).filter(
      (state) => !path.resolve(crewDir).startsWith(`${state}${path.sep}`),
    );
  const openRuntime = (crewDir: string, crewEnv: CrewEnvironment, servedDir: string): Promise<CrewRuntime> =>
    openCrewRuntime({
      crewDir,
      ...(config.crewName === undefined ? {} : { crewName: config.crewName }),
      env: crewEnv.env,
      warn: options.warn,
      allowPartial: config.allowPartial ?? false,
      defaultModel: crewEnv.defaultModel,
      tools: {
        workspaceRoot: workspace,
        crewdState: stateAround(crewDir),
        logger,
        ...(crewDir === servedDir ? {} : { servedDir }),
      },
      modelAdapters: modelThread.adapters,
      check: true,
    });
  // The flow compiler (CEL with it) loads only for a flow.
  const openFlow = async (
    target: string,
    crewEnv: CrewEnvironment,
    servedDir: string,
  ): Promise<FlowRuntime> =>
    (await import('./flow/open-flow-runtime.ts')).openFlowRuntime({
      target,
      env: crewEnv.env,
      warn: options.warn,
      tools: {
        workspaceRoot: workspace,
        crewdState: stateAround(target),
        logger,
        ...(target === servedDir ? {} : { servedDir }),
      },
      modelAdapters: modelThread.adapters,
      logger,
    });
  // A few crews load at once: their file reads and their versions' commits overlap (one commit and one sync for
  // several), which is most of what a start of many crews waits on. Each stays a part of its own.
  const opened = await lifecycle.openEach<ServedCrewConfig, ServedVersions>(
    crewConfigs,
    crewsOpenedAtOnce,
    (served) => ({
      name: crewConfigs.length === 1 ? 'the crew' : `the crew ${served.name}`,
      open: async () => {
        // Read from the crew's own directory: versions copied out of the store hold no `.env`.
        const crewEnv = await crewEnvironment(served.dir, options, config.defaultModel);
        return deployServedUnit(served, {
          store,
          clock,
          copiesRoot: crewVersionsRoot(config.database),
          defaultModel: crewEnv.defaultModel,
          newId: timeOrderedId,
          crewName: config.crewName,
          openCrew: (dir) => openRuntime(dir, crewEnv, served.dir),
          openFlow: (target) => openFlow(target, crewEnv, served.dir),
          onLoadFailed: (version, error) =>
            logger.warn({ err: error, crew: served.name, version }, 'could not load a version of the crew'),
        });
      },
      close: (loaded) => loaded.close(),
    }),
  );
  const versions = new Map<string, ServedVersions>(
    crewConfigs.map((served, index) => [served.name, opened[index]!]),
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
  const lease = { owner: processId, durationMs: config.executionLeaseMs };
  const runner = new ExecutionRunner({
    unitOf: async (execution) => versions.get(execution.crew ?? firstCrew)?.runnableOf(execution.crewVersion),
    store,
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
    prices: options.prices ?? createGenaiPriceTable(),
  });
  const dispatcher = createLocalDispatcher({
    concurrency: config.concurrency,
    // Under a limit per token, a run's end may let its token's next execution start though no slot was wanted.
    run:
      config.tokenConcurrency === undefined
        ? (id, committed) => runner.run(id, committed)
        : (id, committed) => runner.run(id, committed).finally(() => claims.wake()),
    onError: (id, error) => logger.error({ err: error, executionId: id }, 'execution run failed'),
    onRoom: () => claims.wake(),
  });
  const claims = new ExecutionClaims({
    store,
    dispatcher,
    clock,
    lease,
    scanMs: config.claimScanMs,
    crews: [...versions.keys()],
    ...(config.tokenConcurrency === undefined ? {} : { runningPerToken: config.tokenConcurrency }),
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
  const limits = {
    ...(config.tokenConcurrency === undefined ? {} : { runningPerToken: config.tokenConcurrency }),
    ...(config.queueLimit === undefined ? {} : { queuedPerToken: config.queueLimit }),
  };
  const services = new Map<string, DurableExecutionService>();
  for (const [name, crewVersions] of versions) {
    const runnable = await crewVersions.runnableOf(crewVersions.servedVersion);
    // Schedules and triggers kept before servers named their crews are under the crew's own name.
    const own = runnable!.crew.name;
    if (own !== name && !versions.has(own)) await store.moveCrewSchedules(own, name);
    services.set(
      name,
      new DurableExecutionService({
        crew: runnable!.crew,
        name,
        versions: crewVersions,
        store,
        runner,
        dispatcher,
        notifications: runnable!.notifications,
        events,
        clock,
        newId: timeOrderedId,
        onCommitted,
        lease,
        limits,
        wakeClaims: () => claims.wake(),
      }),
    );
  }
  // Schedules and triggers are each crew's, kept under the name it is served as.
  const served: ServedCrew[] = [...services].map(([name, service]) => ({
    kind: versions.get(name)?.unitOf(null).kind ?? 'crew',
    name,
    service,
    ...(versions.has(name) ? { versions: versions.get(name)! } : {}),
    ...(config.deployEnabled === true && versions.has(name) ? { deployer: versions.get(name)! } : {}),
    schedules: new ScheduleService({
      store,
      executions: service,
      crew: name,
      clock,
      newId: timeOrderedId,
    }),
    triggers: new TriggerService({ store, executions: service, crew: name }),
  }));
  const only = served.length === 1 ? served[0]! : undefined;
  const server = await buildServer({
    // One crew answers at the root as well; the root of several answers for the executions of all of them.
    ...(only === undefined
      ? { everyCrew: new EveryCrewAccess(store, services) }
      : { service: only.service, schedules: only.schedules!, triggers: only.triggers! }),
    crews: served,
    authenticate: (secret) => tokens.authenticate(secret),
    metrics,
    logger,
    rateLimitPerMinute: config.rateLimitPerMinute,
    ready: () => store.ping(),
    toolSources: () => [...versions.values()].flatMap((crewVersions) => crewVersions.statuses()),
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
        wakeOnEnds: config.tokenConcurrency !== undefined,
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
  // Reviews whose deadlines passed, the ones that passed while no process ran included, are answered from here on.
  await lifecycle.open(
    'review deadlines',
    () => {
      const deadlines = new ReviewDeadlines({
        store,
        clock,
        answer: (executionId) => answerOnDeadline(store, services, firstCrew, executionId),
        scanMs: config.claimScanMs,
        onAnswered: (executionId) => logger.info({ executionId }, 'answered a review whose deadline passed'),
        onError: (error) =>
          quietDuringOutages('review deadlines', error, 'could not answer review deadlines'),
      });
      deadlines.start();
      return Promise.resolve(deadlines);
    },
    (deadlines) => {
      deadlines.stop();
      return Promise.resolve();
    },
  );
  await lifecycle.open(
    'retention',
    () =>
      Promise.resolve(
        startRetention(config, {
          store,
          clock,
          logger,
          forget: (id) => {
            for (const service of services.values()) service.forgetDeleted(id);
          },
        }),
      ),
    async (retention) => retention?.stop(),
  );
  await lifecycle.open(
    'the schedules',
    () =>
      Promise.resolve(
        [...services].map(([name, service]) =>
          startScheduler({ store, name, service, tokens, clock, logger, pollMs: options.schedulePollMs }),
        ),
      ),
    async (schedulers) => {
      await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    },
  );
  lifecycle.running();

  const deployAgain = async (): Promise<{ name: string; version: number; created: boolean }[]> => {
    const deployed = [];
    for (const [name, crewVersions] of versions)
      deployed.push({ name, ...(await crewVersions.deployAgain()) });
    return deployed;
  };
  return { url, startupToken, deployAgain, close: () => lifecycle.stop() };
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

/**
 * Answers a review whose deadline passed by the service of its execution's crew: it holds the crew's versions and
 * notifications. An execution stored before crews had names is the first crew's.
 */
async function answerOnDeadline(
  store: Store,
  services: ReadonlyMap<string, DurableExecutionService>,
  firstCrew: string,
  executionId: string,
): Promise<boolean> {
  const execution = await store.getExecution(executionId);
  if (execution === null) return false;
  const service = services.get(execution.crew ?? firstCrew);
  // A crew no longer served here: a process that serves it answers.
  if (service === undefined) return false;
  return service.answerOnDeadline(executionId);
}

/** Starts each schedule's ticks as they fall due, as every process does; the store keeps one execution a tick. */
function startScheduler(parts: {
  store: Store;
  /** The name the crew is served as, which its schedules are kept under. */
  name: string;
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
    crew: parts.name,
    clock: parts.clock,
    activeTokenIds: async () =>
      new Set(
        (await parts.tokens.list()).filter((token) => token.revokedAt === null).map((token) => token.id),
      ),
    onTick: (outcome) => {
      const fields = {
        crew: parts.name,
        schedule: outcome.schedule.id,
        due_at: outcome.dueAt.toISOString(),
      };
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

/** How many served crews load at the same time at start. */
const crewsOpenedAtOnce = 8;
