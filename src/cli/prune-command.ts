import type { Command } from 'commander';
import { readRetention } from '../config.ts';
import { CrewdError } from '../domain/errors.ts';
import { pruneFinished } from '../service/retention.ts';
import { removeExecutionWorkspace, workspaceRoot } from '../workspace/execution-workspace.ts';
import type { CliContext } from './cli-context.ts';
import { commandDatabase, withStore } from './with-store.ts';

interface PruneFlags {
  readonly olderThan?: string;
  readonly database?: string;
}

/** `crewd prune`: deletes finished executions older than the retention period once, straight on the database. */
export function registerPruneCommand(program: Command, context: CliContext): void {
  program
    .command('prune')
    .description(
      'delete finished executions (with their events, webhook messages and files) older than a period',
    )
    .option('--older-than <period>', 'e.g. 30d, 12h (default: CREWD_RETENTION)')
    .option(
      '--database <location>',
      'SQLite file or postgres:// URL (default: CREWD_DATABASE_URL or ./.crewd/crewd.db)',
    )
    .action(async (flags: PruneFlags) => {
      const retentionMs = retentionOf(flags, context);
      const database = commandDatabase(flags.database, context);
      const root = workspaceRoot(database);
      await withStore(database, async (store) => {
        const deleted = await pruneFinished({
          store,
          onDeleted: (id) => removeExecutionWorkspace(root, id),
          retentionMs,
          clock: () => new Date(),
        });
        const period = flags.olderThan ?? context.env.CREWD_RETENTION ?? '';
        context.stdout.write(
          `Deleted ${deleted} finished execution${deleted === 1 ? '' : 's'} older than ${period}\n`,
        );
        // Versions go once no execution runs on them any more, so this follows the executions' deletion.
        const versions = await store.deleteUnusedCrewVersions(new Date(Date.now() - retentionMs));
        if (versions > 0) {
          context.stdout.write(
            `Deleted ${versions} crew version${versions === 1 ? '' : 's'} older than ${period} that nothing uses\n`,
          );
        }
      });
    });
}

function retentionOf(flags: PruneFlags, context: CliContext): number {
  if (flags.olderThan !== undefined) return readRetention(flags.olderThan, '--older-than');
  const fromEnv = context.env.CREWD_RETENTION;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return readRetention(fromEnv, 'CREWD_RETENTION');
  throw new CrewdError(
    'CONFIG_INVALID',
    'Say how old a finished execution must be to go: --older-than 30d, or set CREWD_RETENTION',
  );
}
