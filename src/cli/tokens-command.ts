import { utcDayOf, type Budget, type Spend } from '../domain/budget.ts';
import type { Command } from 'commander';
import { CrewdError } from '../domain/errors.ts';
import { roundUsd } from '../domain/usage.ts';
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

  database(
    tokens
      .command('list')
      .description("list tokens (never their secrets), with their daily budgets and today's spend (UTC)"),
  ).action((options: DatabaseOptions) =>
    withStore(commandDatabase(options.database, context), async (store) => {
      const now = new Date();
      const records = await createTokenService({ store, clock: () => now }).list();
      const day = utcDayOf(now);
      const spent = await Promise.all(
        records.map((record) => store.tokenSpend(record.id, day.start, day.end)),
      );
      context.stdout.write(tokenTable(records, spent, day.start));
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

/** The tokens, each with its daily budget and what its executions spent on `day` (`spent`, in the same order). */
function tokenTable(records: readonly TokenRecord[], spent: readonly Spend[], day: Date): string {
  if (records.length === 0) return 'No tokens yet; create one with: crewd tokens create --org\n';
  const header = [
    'ID',
    'KIND',
    'USER',
    'NAME',
    'CREWS',
    'DAILY BUDGET',
    `SPENT ${day.toISOString().slice(0, 10)}`,
    'CREATED',
    'REVOKED',
  ];
  const rows = records.map((record, index) => [
    record.id,
    record.deploy === true ? 'deploy' : record.kind,
    record.userId ?? '-',
    record.name ?? '-',
    record.crews?.join(',') ?? '*',
    record.dailyBudget == null ? '-' : budgetText(record.dailyBudget),
    spendText(spent[index]),
    record.createdAt.toISOString(),
    record.revokedAt?.toISOString() ?? '-',
  ]);
  return textTable(header, rows);
}

/** `50000 tokens, $2.5`: the amounts the budget sets. */
function budgetText(budget: Budget): string {
  return [
    ...(budget.tokens === undefined ? [] : [`${budget.tokens} tokens`]),
    ...(budget.costUsd === undefined ? [] : [`$${budget.costUsd}`]),
  ].join(', ');
}

/** `1050 tokens, $1.05` (and the calls of models with no known price), or `-` for nothing spent. */
function spendText(spent: Spend | undefined): string {
  if (spent === undefined || (spent.tokens === 0 && spent.unpricedRequests === 0)) return '-';
  const unpriced = spent.unpricedRequests === 0 ? '' : `, ${spent.unpricedRequests} unpriced`;
  return `${spent.tokens} tokens, $${roundUsd(spent.costUsd)}${unpriced}`;
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
