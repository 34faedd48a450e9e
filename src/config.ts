import { z } from 'zod';
import { parseDuration } from './domain/duration.ts';
import { CrewdError } from './domain/errors.ts';

/** One crew a server serves: where it is, and the name its base URL `/crews/<name>` carries. */
export interface ServedCrewConfig {
  readonly dir: string;
  readonly name: string;
}

/** Settings of `crewd serve`, from flags and environment variables (flags win). */
export interface ServeConfig {
  /** The first crew served; with `crews` absent, the only one, named after its directory (`crewNameOf`). */
  readonly crewDir: string;
  /** Every crew served, the first being `crewDir`'s (`crewd serve <path> [<path>…]`). */
  readonly crews?: readonly ServedCrewConfig[];
  /** Which crew of a project holding several (`--crew`). */
  readonly crewName?: string;
  /** Serve a crew even when parts of it are not honoured (`--allow-partial`). */
  readonly allowPartial?: boolean;
  readonly host: string;
  readonly port: number;
  /** A file path (SQLite) or a postgres:// URL. */
  readonly database: string;
  readonly orgToken?: string;
  readonly defaultModel?: string;
  readonly webhookSecret?: string;
  readonly webhookAllowPrivate: boolean;
  readonly webhookRetrySchedule?: string;
  readonly concurrency: number;
  /** Executions one token may have running at once across every process (`CREWD_TOKEN_CONCURRENCY`); no limit when absent. */
  readonly tokenConcurrency?: number;
  /** Executions one token may have waiting as PENDING before kickoff answers 429 (`CREWD_QUEUE_LIMIT`). */
  readonly queueLimit?: number;
  readonly rateLimitPerMinute: number;
  /** How long running model calls may take to finish on SIGTERM. */
  readonly shutdownGraceMs: number;
  /**
   * How long an execution stays with the process running it without word from that process: after a crash, another
   * process (or the restarted one) continues it once this has passed.
   */
  readonly executionLeaseMs: number;
  /**
   * How often a process looks for work without being notified: executions of processes that died or whose leases
   * ran out, and (on SQLite, where processes send no notices) new work.
   */
  readonly claimScanMs: number;
  /** Open connections one client address may hold (0: no cap); behind a proxy every client shares its address. */
  readonly connectionsPerAddress: number;
  /** Finished executions older than this are deleted (`CREWD_RETENTION`); kept forever when absent. */
  readonly retentionMs?: number;
  /** Takes `crewd deploy` from deploy tokens (`CREWD_DEPLOY=1`); off by default, as deploying runs the crew's tools. */
  readonly deployEnabled?: boolean;
}

export interface ServeFlags {
  readonly crew?: string;
  readonly allowPartial?: boolean;
  readonly port?: string;
  readonly host?: string;
  readonly database?: string;
}

export const defaultDatabasePath = './.crewd/crewd.db';

const integer = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const schema = z.object({
  port: integer('--port or PORT', 0, 65535),
  host: z.string().min(1, '--host or HOST must not be empty'),
  database: z
    .string()
    .min(1, '--database or CREWD_DATABASE_URL must not be empty')
    // Anything with a scheme is a URL, and only PostgreSQL's is understood; the rest is a SQLite file path.
    .refine(
      (value) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^postgres(ql)?:\/\//.test(value),
      '--database or CREWD_DATABASE_URL must be a file path (SQLite) or a postgres:// URL',
    ),
  orgToken: z.string().min(16, 'CREWD_ORG_TOKEN must be at least 16 characters').optional(),
  defaultModel: z
    .string()
    // crewAI's own .env files name bare OpenAI models too (MODEL=gpt-4o-mini).
    .regex(/^[\w.:-]+(\/\S+)?$/, 'MODEL must name a model, e.g. gpt-4o-mini or openai/gpt-4o-mini')
    .optional(),
  webhookSecret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]+$/, 'CREWD_WEBHOOK_SECRET must look like whsec_<base64>')
    .optional(),
  webhookAllowPrivate: z.enum(['0', '1', 'true', 'false'], {
    error: 'CREWD_WEBHOOK_ALLOW_PRIVATE must be 1 or 0',
  }),
  webhookRetrySchedule: z.string().optional(),
  concurrency: integer('CREWD_CONCURRENCY', 1, 100_000),
  tokenConcurrency: integer('CREWD_TOKEN_CONCURRENCY', 1, 100_000).optional(),
  queueLimit: integer('CREWD_QUEUE_LIMIT', 1, 100_000_000).optional(),
  rateLimitPerMinute: integer('CREWD_RATE_LIMIT', 0, 10_000_000),
  shutdownGraceMs: integer('CREWD_SHUTDOWN_GRACE_MS', 0, 3_600_000),
  executionLeaseMs: integer('CREWD_EXECUTION_LEASE_MS', 300, 3_600_000),
  claimScanMs: integer('CREWD_CLAIM_SCAN_MS', 50, 3_600_000),
  connectionsPerAddress: integer('CREWD_CONNECTIONS_PER_ADDRESS', 0, 1_000_000),
});

/** Reads the configuration; a wrong value is a `CONFIG_INVALID` error naming the flag or variable. */
export function readServeConfig(
  crewDir: string,
  flags: ServeFlags,
  env: Readonly<Record<string, string | undefined>>,
): ServeConfig {
  // A variable set to the empty string counts as unset (`PORT= crewd serve` serves on 8000), as with every
  // variable; a flag given as empty is a mistake and says so.
  const parsed = schema.safeParse({
    port: flags.port ?? nonEmpty(env.PORT) ?? '8000',
    host: flags.host ?? nonEmpty(env.HOST) ?? '127.0.0.1',
    database: flags.database ?? nonEmpty(env.CREWD_DATABASE_URL) ?? defaultDatabasePath,
    orgToken: nonEmpty(env.CREWD_ORG_TOKEN),
    defaultModel: nonEmpty(env.MODEL),
    webhookSecret: nonEmpty(env.CREWD_WEBHOOK_SECRET),
    webhookAllowPrivate: nonEmpty(env.CREWD_WEBHOOK_ALLOW_PRIVATE) ?? '0',
    webhookRetrySchedule: nonEmpty(env.CREWD_WEBHOOK_RETRY_SCHEDULE),
    concurrency: nonEmpty(env.CREWD_CONCURRENCY) ?? '64',
    tokenConcurrency: nonEmpty(env.CREWD_TOKEN_CONCURRENCY),
    queueLimit: nonEmpty(env.CREWD_QUEUE_LIMIT),
    rateLimitPerMinute: nonEmpty(env.CREWD_RATE_LIMIT) ?? '1200',
    shutdownGraceMs: nonEmpty(env.CREWD_SHUTDOWN_GRACE_MS) ?? '10000',
    executionLeaseMs: nonEmpty(env.CREWD_EXECUTION_LEASE_MS) ?? '30000',
    claimScanMs: nonEmpty(env.CREWD_CLAIM_SCAN_MS) ?? '1000',
    connectionsPerAddress: nonEmpty(env.CREWD_CONNECTIONS_PER_ADDRESS) ?? '256',
  });
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new CrewdError('CONFIG_INVALID', first?.message ?? 'invalid configuration');
  }
  const { webhookAllowPrivate, tokenConcurrency, queueLimit, ...rest } = parsed.data;
  const retention = nonEmpty(env.CREWD_RETENTION);
  return {
    ...rest,
    ...(tokenConcurrency === undefined ? {} : { tokenConcurrency }),
    ...(queueLimit === undefined ? {} : { queueLimit }),
    ...(retention === undefined ? {} : { retentionMs: readRetention(retention, 'CREWD_RETENTION') }),
    crewDir,
    ...(flags.crew === undefined ? {} : { crewName: flags.crew }),
    ...(flags.allowPartial === true ? { allowPartial: true } : {}),
    ...(deployFlag(env.CREWD_DEPLOY) ? { deployEnabled: true } : {}),
    webhookAllowPrivate: webhookAllowPrivate === '1' || webhookAllowPrivate === 'true',
  };
}

/** A retention period such as `30d` or `12h`; `name` (the flag or variable) is what a wrong value is blamed on. */
export function readRetention(text: string, name: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new CrewdError(
      'CONFIG_INVALID',
      `${name} must be a whole number and a unit (s, m, h, d or w), such as 30d or 12h`,
    );
  }
  return ms;
}

function deployFlag(value: string | undefined): boolean {
  const given = nonEmpty(value);
  if (given === undefined || given === '0' || given === 'false') return false;
  if (given === '1' || given === 'true') return true;
  throw new CrewdError('CONFIG_INVALID', 'CREWD_DEPLOY must be 1 or 0');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
