import type { Command } from 'commander';
import { CrewdError } from '../domain/errors.ts';
import { newTriggerSecret } from '../service/trigger-service.ts';
import type { CliContext } from './cli-context.ts';
import { parseJsonObject } from './parse-json-object.ts';
import { textTable } from './text-table.ts';
import { commandDatabase, withStore } from './with-store.ts';

interface DatabaseOptions {
  readonly database?: string;
}

interface CreateOptions extends DatabaseOptions {
  readonly crew?: string;
  readonly inputs?: string;
}

/** `crewd triggers create | list | delete`: entry points for other systems' events, straight on the database. */
export function registerTriggersCommand(program: Command, context: CliContext): void {
  const triggers = program
    .command('triggers')
    .description("manage triggers: other systems' events that start a crew (run against the database)");
  const database = (command: Command): Command =>
    command.option(
      '--database <location>',
      'SQLite file or postgres:// URL (default: CREWD_DATABASE_URL or ./.crewd/crewd.db)',
    );
  const withDatabase = (options: DatabaseOptions, work: Parameters<typeof withStore>[1]) =>
    withStore(commandDatabase(options.database, context), work);

  database(
    triggers
      .command('create')
      .description('create a trigger; its signing secret is the last line of output, shown only this once'),
  )
    .argument('<name>', 'the name in its URL: {base_url}/triggers/<name>')
    .option(
      '--crew <name>',
      'the one crew it may start, by the name it is served as (default: whichever crew it is posted to)',
    )
    .option('--inputs <json>', 'inputs every execution it starts gets, beside crewai_trigger_payload', '{}')
    .action((name: string, options: CreateOptions) =>
      withDatabase(options, async (store) => {
        if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) {
          throw new CrewdError(
            'VALIDATION_ERROR',
            'A trigger name is 1 to 100 letters, digits, dots, dashes or underscores, starting with a letter or digit',
          );
        }
        const secret = newTriggerSecret();
        const created = await store.createTrigger({
          name,
          crew: options.crew ?? null,
          secret,
          inputs: parseJsonObject(options.inputs ?? '{}', '--inputs'),
          createdAt: new Date(),
        });
        if (!created) throw new CrewdError('VALIDATION_ERROR', `A trigger named ${name} exists already`);
        context.stdout.write(
          `Created trigger ${name}: POST {base_url}/triggers/${name}, signed with Standard Webhooks using this ` +
            'secret (or sent with a bearer token). It is shown only this once:\n',
        );
        context.stdout.write(`${secret}\n`);
      }),
    );

  database(triggers.command('list').description('list triggers (never their secrets)')).action(
    (options: DatabaseOptions) =>
      withDatabase(options, async (store) => {
        const all = await store.listTriggers();
        if (all.length === 0) {
          context.stdout.write('No triggers yet; create one with: crewd triggers create <name>\n');
          return;
        }
        const rows = all.map((trigger) => [
          trigger.name,
          trigger.crew ?? '-',
          JSON.stringify(trigger.inputs),
          trigger.createdAt.toISOString(),
        ]);
        context.stdout.write(textTable(['NAME', 'CREW', 'INPUTS', 'CREATED'], rows));
      }),
  );

  database(triggers.command('delete').description('delete a trigger; its URL stops starting anything'))
    .argument('<name>', 'the trigger name')
    .action((name: string, options: DatabaseOptions) =>
      withDatabase(options, async (store) => {
        if (!(await store.deleteTrigger(name)))
          throw new CrewdError('NOT_FOUND', `No trigger is named ${name}`);
        context.stdout.write(`Deleted trigger ${name}\n`);
      }),
    );
}
