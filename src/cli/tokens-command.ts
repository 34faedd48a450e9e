import type { Budget } from '../domain/budget.ts';
import type { Command } from 'commander';
import { CrewdError } from '../domain/errors.ts';
import { createTokenService } from '../service/token-service.ts';
import type { TokenService } from '../service/token-service.ts';
import type { TokenRecord } from '../store/store.ts';
import type { CliContext } from './cli-context.ts';
import { textTable } from './text-table.ts';
import { commandDatabase, withStore } from './with-store.ts';

interface DatabaseOptions {
  readonly database?: string;
}

interface CreateOptions extends DatabaseOptions {
  readonly org?: boolean;
  readonly user?: string;
  readonly name?: string;
  readonly crews?: string;
  readonly deploy?: boolean;
  readonly dailyBudgetTokens?: string;
  readonly dailyBudgetUsd?: string;
}

/** `crewd tokens create | list | revoke`: token administration, straight on the database. */
export function registerTokensCommand(program: Command, context: CliContext): void {
  const tokens = program.command('tokens').description('manage API tokens (run against the database)');
  const database = (command: Command): Command =>
    command.option(
      '--database <location>',
      'SQLite file or postgres:// URL (default: CREWD_DATABASE_URL or ./.crewd/crewd.db)',
    );

  database(tokens.command('create').description('create a token; the token alone is the last line of output'))
    .option('--org', 'an organization token: every operation on every execution')
    .option('--user <user-id>', "a user token: kickoff, and only that user's executions")
    .option('--name <name>', 'a label to recognise the token by')
    .option('--crews <names>', 'limit the token to these crews, comma-separated (default: every crew)')
    .option('--deploy', 'with --org: a token for crewd deploy, which deploys and does nothing else')
    .option(
      '--daily-budget-tokens <tokens>',
      "tokens the token's executions may spend together each day (UTC)",
    )
    .option(
      '--daily-budget-usd <dollars>',
      "US dollars the token's executions may spend together each day (UTC)",
    )
    .action((options: CreateOptions) =>
      withTokens(options, context, async (service) => {
        if ((options.org === true) === (options.user !== undefined)) {
          throw new CrewdError('VALIDATION_ERROR', 'Pass exactly one of --org and --user <user-id>');
        }
        const created = await service.create({
          kind: options.user === undefined ? 'org' : 'user',
          ...(options.user === undefined ? {} : { userId: options.user }),
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.crews === undefined ? {} : { crews: crewList(options.crews) }),
          ...(options.deploy === true ? { deploy: true } : {}),
          ...dailyBudgetOf(options),
        });
        const who =
          options.user !== undefined
            ? `token for user ${options.user}`
            : options.deploy === true
              ? 'deploy token'
              : 'organization token';
        const reach =
          options.crews === undefined ? '' : ` for the crews ${crewList(options.crews).join(', ')}`;
        context.stdout.write(`Created ${who} ${created.record.id}${reach}. It is shown only this once:\n`);
        context.stdout.write(`${created.secret}\n`);
      }),
    );

  database(tokens.command('list').description('list tokens (never their secrets)')).action(
    (options: DatabaseOptions) =>
      withTokens(options, context, async (service) => {
        context.stdout.write(tokenTable(await service.list()));
      }),
  );

  database(tokens.command('revoke').description('revoke a token; it stops working within a second'))
    .argument('<id>', 'the token id, as tokens list shows it')
    .action((id: string, options: DatabaseOptions) =>
      withTokens(options, context, async (service) => {
        if (!(await service.revoke(id))) throw new CrewdError('NOT_FOUND', `No token has the id ${id}`);
        context.stdout.write(`Revoked ${id}\n`);
      }),
    );
}

/** Runs `work` with the token service on the command's database. */
function withTokens(
  options: DatabaseOptions,
  context: CliContext,
  work: (service: TokenService) => Promise<void>,
): Promise<void> {
  return withStore(commandDatabase(options.database, context), (store) =>
    work(createTokenService({ store, clock: () => new Date() })),
  );
}

/** `a,b` as a list of names; empty entries are left out. */
function crewList(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function tokenTable(records: readonly TokenRecord[]): string {
  if (records.length === 0) return 'No tokens yet; create one with: crewd tokens create --org\n';
  const header = ['ID', 'KIND', 'USER', 'NAME', 'CREWS', 'CREATED', 'REVOKED'];
  const rows = records.map((record) => [
    record.id,
    record.deploy === true ? 'deploy' : record.kind,
    record.userId ?? '-',
    record.name ?? '-',
    record.crews?.join(',') ?? '*',
    record.createdAt.toISOString(),
    record.revokedAt?.toISOString() ?? '-',
  ]);
  return textTable(header, rows);
}

/** The daily budget the options give, as numbers; the token service checks their values. */
function dailyBudgetOf(options: CreateOptions): { dailyBudget?: Budget } {
  const { dailyBudgetTokens, dailyBudgetUsd } = options;
  if (dailyBudgetTokens === undefined && dailyBudgetUsd === undefined) return {};
  return {
    dailyBudget: {
      ...(dailyBudgetTokens === undefined
        ? {}
        : { tokens: numberOption(dailyBudgetTokens, '--daily-budget-tokens') }),
      ...(dailyBudgetUsd === undefined
        ? {}
        : { costUsd: numberOption(dailyBudgetUsd, '--daily-budget-usd') }),
    },
  };
}

function numberOption(value: string, name: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) {
    throw new CrewdError('VALIDATION_ERROR', `${name} must be a number`);
  }
  return number;
}
