import type { Command } from 'commander';
import { CrewdError } from '../domain/errors.ts';
import type { CliContext } from './cli-context.ts';
import { commandDatabase, withStore } from './with-store.ts';

interface DatabaseFlags {
  readonly database?: string;
}

const databaseHelp = 'SQLite file or postgres:// URL (default: CREWD_DATABASE_URL or ./.crewd/crewd.db)';

/**
 * `crewd versions <name>` lists a served crew's versions; `crewd rollback <name> <version>` serves an earlier one
 * to new kickoffs. Both straight on the database: running servers take a rollback up within a second, and
 * executions keep the versions they started on.
 */
export function registerVersionsCommands(program: Command, context: CliContext): void {
  program
    .command('versions')
    .description("list a crew's versions, and the one new kickoffs use")
    .argument('<name>', 'the crew, as in its base URL /crews/<name>')
    .option('--database <location>', databaseHelp)
    .action((name: string, flags: DatabaseFlags) =>
      withStore(commandDatabase(flags.database, context), async (store) => {
        const versions = await store.listCrewVersions(name);
        if (versions.length === 0) throw new CrewdError('NOT_FOUND', `No versions of a crew named ${name}`);
        const served = (await store.servedCrewVersion(name))?.version;
        const rows = versions.map((record) =>
          [
            String(record.version).padEnd(7),
            record.version === served ? 'served ' : '       ',
            record.createdAt.toISOString(),
            record.hash.slice(0, 12),
          ].join('  '),
        );
        context.stdout.write(`${['VERSION  SERVED   CREATED                   HASH', ...rows].join('\n')}\n`);
      }),
    );

  program
    .command('rollback')
    .description('serve an earlier version of a crew to new kickoffs; executions keep theirs')
    .argument('<name>', 'the crew, as in its base URL /crews/<name>')
    .argument('<version>', 'the version to serve, as crewd versions lists it')
    .option('--database <location>', databaseHelp)
    .action((name: string, version: string, flags: DatabaseFlags) =>
      withStore(commandDatabase(flags.database, context), async (store) => {
        const number = Number(version);
        if (!Number.isInteger(number) || number < 1) {
          throw new CrewdError('VALIDATION_ERROR', `The version must be a whole number, not '${version}'`);
        }
        if (!(await store.serveCrewVersion(name, number, new Date()))) {
          throw new CrewdError('NOT_FOUND', `The crew ${name} has no version ${number}`);
        }
        context.stdout.write(`New kickoffs of ${name} run on version ${number}\n`);
      }),
    );
}
