import type { Command } from 'commander';
import type { ScheduleView } from '../client/index.ts';
import type { CliContext } from './cli-context.ts';
import { call, clientFor, type ConnectionOptions } from './client-commands.ts';
import { parseJsonObject } from './parse-json-object.ts';
import { textTable } from './text-table.ts';

interface CreateOptions extends ConnectionOptions {
  readonly cron: string;
  readonly timezone?: string;
  readonly inputs: string;
  readonly meta?: string;
  readonly name?: string;
}

/** `crewd schedules …`: a running server's schedules, through its API. */
export function registerSchedulesCommand(program: Command, context: CliContext): void {
  const schedules = program.command('schedules').description("a running server's schedules");
  const connection = (command: Command): Command =>
    command
      .option('--url <url>', 'the server (default: CREWD_URL or http://127.0.0.1:8000)')
      .option('--token <token>', 'bearer token (default: CREWD_TOKEN)');
  const print = (schedule: ScheduleView): void => {
    context.stdout.write(`${JSON.stringify(schedule, null, 2)}\n`);
  };

  connection(schedules.command('create').description('start the crew on a cron expression'))
    .requiredOption('--cron <expression>', 'five fields (minute hour day month weekday), e.g. "0 9 * * 1-5"')
    .option('--timezone <zone>', 'an IANA time zone the expression is read in', 'UTC')
    .requiredOption('--inputs <json>', "the crew's inputs, as a JSON object")
    .option('--meta <json>', 'meta for every execution it starts, as a JSON object')
    .option('--name <name>', 'a label to recognise it by')
    .action(async (options: CreateOptions) => {
      const created = await call(() =>
        clientFor(options, context).schedules.create({
          cron: options.cron,
          ...(options.timezone === undefined ? {} : { timezone: options.timezone }),
          inputs: parseJsonObject(options.inputs, '--inputs'),
          ...(options.meta === undefined ? {} : { meta: parseJsonObject(options.meta, '--meta') }),
          ...(options.name === undefined ? {} : { name: options.name }),
        }),
      );
      context.stderr.write(`Created schedule ${created.id}; next at ${created.next_due_at ?? '-'}\n`);
      print(created);
    });

  connection(schedules.command('list').description('list schedules')).action(
    async (options: ConnectionOptions) => {
      const all = await call(() => clientFor(options, context).schedules.list());
      if (all.length === 0) {
        context.stdout.write(
          'No schedules yet; create one with: crewd schedules create --cron … --inputs …\n',
        );
        return;
      }
      const rows = all.map((schedule) => [
        schedule.id,
        schedule.name ?? '-',
        schedule.cron,
        schedule.timezone,
        schedule.paused ? 'paused' : 'active',
        schedule.next_due_at ?? '-',
      ]);
      context.stdout.write(textTable(['ID', 'NAME', 'CRON', 'TIMEZONE', 'STATE', 'NEXT'], rows));
    },
  );

  for (const action of ['pause', 'resume'] as const) {
    connection(schedules.command(action).description(`${action} a schedule`))
      .argument('<id>', 'the schedule id')
      .action(async (id: string, options: ConnectionOptions) => {
        print(await call(() => clientFor(options, context).schedules[action](id)));
      });
  }

  connection(schedules.command('run').description("start one of a schedule's executions now"))
    .argument('<id>', 'the schedule id')
    .action(async (id: string, options: ConnectionOptions) => {
      const { kickoff_id } = await call(() => clientFor(options, context).schedules.run(id));
      context.stdout.write(`${kickoff_id}\n`);
    });

  connection(schedules.command('delete').description('delete a schedule'))
    .argument('<id>', 'the schedule id')
    .action(async (id: string, options: ConnectionOptions) => {
      await call(() => clientFor(options, context).schedules.delete(id));
      context.stderr.write(`Deleted schedule ${id}\n`);
    });
}
